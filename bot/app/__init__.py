"""The GitHub App: webhook intake, a durable job queue and the worker that drains it.

Data flows one way: a signed delivery (web.py) is routed to job specs (events.py), stored in
the queue (queue.py) and answered at once; the worker (worker.py) claims jobs and hands each
to the job handler, which talks to GitHub. Settings come from the environment when the app is
built (config.py), never at import time.
"""
