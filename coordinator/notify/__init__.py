"""Notifications: a JSON POST to webhooks when a run ends (finished, failed or stopped).

``message`` makes the body (pure), ``urls`` checks and masks webhook URLs, ``backoff`` says when a
failed delivery is tried again (pure), ``delivery`` sends in the background with retries, and
``notifier`` ties them together for the server: the operator's webhooks and each run's own.
"""
