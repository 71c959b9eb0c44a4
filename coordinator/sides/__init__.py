"""The sides of a run: what plays as a run's candidate, baseline or tournament engine.

A side is the built-in engine with a weights file, or an engine program that speaks the protocol
(docs/protocol.md): named by an engine file (files.py: its command, files, protocol and option
values, packed into the archive workers get) or by a ref of a repository (refs.py: a commit every
worker builds). Before a run plays a program, this machine starts it as a worker would: its
handshake declares its name and options (options.py), and the determinism probe (probe.py) says
whether its games can be spot-checked; ``arbiter engine check`` asks all of that at once
(check.py).
"""
