"""Workers of arbiter: play batches of game pairs with the rules and search core.

``worker.games`` is Celery-free (the local process pool uses it directly); the Celery app and its
thin task wrappers live beside it.
"""
