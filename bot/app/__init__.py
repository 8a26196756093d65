"""The GitHub App: webhook intake, a durable job queue and the worker that drains it.

Four wings, each a package, and a shared base; data flows one way, and a wing imports only the
base and the wings before it (tests/test_layout.py holds the order):

    base     config.py (settings from the environment, read when the App is built, never at
             import time), logs.py, metrics.py
    queue    the job queue and the App's state in one database (protocol.py; sqlite.py for one
             process, postgres.py with DATABASE_URL, chosen by database.py), the typed store
             over it (store.py), and the workers that drain it (worker.py)
    intake   a signed delivery (web.py) routed to typed job payloads (events.py, payloads.py),
             stored in the queue and answered at once
    github   the githubkit adapter (client.py), GitHub's limits across processes (lanes.py),
             one job's context (context.py), the writes found again on retry (checkruns.py,
             review.py, summary.py), the manifest flow (register.py)
    jobs     what the worker runs: handler.py hands each job to its kind's module
    root     main.py: the App wired together, `docs-sync serve` and `docs-sync worker`

    a check job     checkjob.py: the pull request -> analysis.py (rules from repoconfig.py, the
                    revisions from snapshot.py and history.py, the check in a process of its
                    own within the budgets: sandbox.py, waivers) -> review.py (inline
                    comments), summary.py (the summary comment) -> checkruns.py (the outcome)
    a command job   commands.py: `/docs-sync <verb>`, a registry of small functions; apply.py
                    commits the suggested doc changes to the pull request's branch

Every word the App writes on GitHub comes from bot.render.comments. main.py is the composition
root: it reads the settings, opens the queue, builds the worker with the job handler (imported
there lazily, so the intake never loads the analysis) and serves; nothing in bot/app imports it.
"""
