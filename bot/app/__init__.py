"""The GitHub App: webhook intake, a durable job queue and the worker that drains it.

Data flows one way: a signed delivery (web.py) is routed to typed job payloads (events.py,
payloads.py), stored in the queue (queue.py) and answered at once; the worker's threads
(worker.py) claim jobs, one per repository at a time, and hand each to the handler (handler.py),
which opens the job's context (context.py: the delivery id, the repository's client, the store,
settings, metrics) and runs it:

    a check job     checkjob.py: the pull request -> analysis.py (rules from repoconfig.py, the
                    revisions from snapshot.py, the check in a process of its own within the
                    budgets: sandbox.py, waivers) -> review.py (inline comments), summary.py
                    (the summary comment) -> checkruns.py (the outcome)
    a command job   commands.py: `/docs-sync <verb>`, a registry of small functions; apply.py
                    commits the suggested doc changes to the pull request's branch

The queue database (database.py picks it) is a SQLite file for one process (queue.py), or
PostgreSQL (queue_pg.py, DATABASE_URL) shared by `serve --no-worker` web processes and
`docs-sync worker` processes; lanes.py keeps GitHub's write spacing and installation tokens
across those processes.

What the App remembers between jobs lives in store.py (typed values over the queue database);
every word it writes on GitHub comes from bot.render.comments; github.py is the githubkit
adapter. Settings come from the environment when the app is built (config.py), never at import
time. handler.py sits on top: no module here imports it but web.py, lazily, so the intake never
loads the analysis.
"""
