"""Metrics: prometheus_client series with the names the README gives, one registry per App."""

from bot.app.metrics import Metrics
from tests.appkit import Scrape


def test_two_apps_in_one_process_count_apart():
    first, second = Metrics(), Metrics()  # a second registration of a name would raise here
    first.delivery("pull_request")
    first.findings(2)
    assert first.value("docs_sync_deliveries_total", event="pull_request") == 1
    assert second.value("docs_sync_deliveries_total", event="pull_request") == 0
    assert Scrape(second.render())("docs_sync_findings_total") == 0
    assert Scrape(first.render())("docs_sync_findings_total") == 2


def test_event_names_outside_githubs_vocabulary_share_one_series():
    metrics = Metrics()
    for event in ("push", "x" * 300, "star", 'quote"d'):
        metrics.delivery(event)
    scrape = Scrape(metrics.render())
    assert scrape.series("docs_sync_deliveries_total") == {
        frozenset({("event", "push")}): 1,
        frozenset({("event", "other")}): 3,
    }


def test_the_queue_gauge_is_what_the_scrape_read():
    metrics = Metrics()
    scrape = Scrape(metrics.render({"queued": 2, "running": 1}))
    assert (
        scrape("docs_sync_queue_jobs", state="queued"),
        scrape("docs_sync_queue_jobs", state="running"),
    ) == (
        2,
        1,
    )
    assert Scrape(metrics.render({"queued": 0, "running": 0}))("docs_sync_queue_jobs", state="queued") == 0
    histogram = Scrape(metrics.render())
    assert histogram.types["docs_sync_job_seconds"] == "histogram"
    metrics.job("failed", 400.0)  # past the last bucket: counted under +Inf only
    after = Scrape(metrics.render())
    assert after("docs_sync_job_seconds_bucket", le="300.0") == 0
    assert after("docs_sync_job_seconds_bucket", le="+Inf") == 1
    assert after("docs_sync_job_seconds_sum") == 400.0
