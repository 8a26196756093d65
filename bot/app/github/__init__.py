"""The GitHub wing: everything that speaks GitHub's API.

client.py is the githubkit adapter (GitHubApp, Repo, GitHubError); lanes.py keeps GitHub's
write spacing and installation tokens across processes; context.py is one job's view (its
repository's client, the store, the settings); checkruns.py, review.py and summary.py write a
job's outcome, found again on retry; register.py is the manifest flow that creates the App.
"""
