"""The queue wing: the durable job queue and the App's state in one database, and the workers that
drain it.

protocol.py holds the queue's types and rules (JobQueue); sqlite.py and postgres.py are its two
backends, database.py picks one from the settings; store.py keeps typed values over it;
worker.py runs a job handler on the jobs it claims.
"""
