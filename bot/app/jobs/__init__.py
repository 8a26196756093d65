"""The jobs wing: what the worker runs.

handler.py hands each job to the module of its kind: checkjob.py (a pull request's check:
analysis.py, with the rules from repoconfig.py, the revisions from snapshot.py and history.py,
the check in a process of its own within the budgets: sandbox.py), commands.py (`/docs-sync
<verb>`; apply.py commits suggested doc changes) and recovery.py (failed deliveries redelivered).
"""
