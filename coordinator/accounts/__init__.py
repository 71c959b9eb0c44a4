"""Accounts of the people who use ``arbiter server`` (docs/server.md, Accounts): ``passwords``
(Argon2id hashes), ``rules`` (who may do what, and which runs wait for an approval: pure),
``identity`` (who a request comes from: a token or a session)."""
