"""The GitHub wing: everything that speaks GitHub's API.

client.py is the githubkit adapter (GitHubApp, Repo, GitHubError), shapes.py the TypedDicts of
the JSON it returns and takes, auth.py its credentials (the App JWT, installation tokens);
lanes.py keeps GitHub's write spacing and installation tokens across processes; context.py is
one job's view (its repository's client, the store, the settings); once.py makes each creation
once however often a job runs, the way checkruns.py, review.py and summary.py write a job's
outcome; register.py is the manifest flow that creates the App.
"""
