"""The intake wing: a signed delivery in, typed jobs stored in the queue, an answer within
milliseconds; it never calls GitHub and never loads the analysis.

web.py serves the webhook endpoint, health and metrics; events.py routes a delivery to job
specs; payloads.py is the typed payload of each job kind, parsed again when a job runs.
"""
