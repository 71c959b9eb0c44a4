"""The wire: what crosses the broker between a coordinator and its workers, and how each side
reaches it. Both sides import it; it imports neither (only ``engine``, whose version names the
queues and whose limits a payload carries).

protocol (a batch's payload, a worker's answer, their game records and fault reasons), fields (the
checks of every value read from JSON), programs (an engine program or a commit as a payload names
it, its archive and its files' digest), sealing (the fleet's keys: payloads signed, answers and
heartbeats sealed) and secrecy (keys held in memory, out of the environment), heartbeat (a worker's
heartbeat as it sits on the broker), tally (the counts an answer states, as the coordinator checks
them), speed (the reference speed and what a time factor does to limits), celeryconfig (the Celery
settings and app both sides build), connectivity (is the broker reachable?) and masking (URLs
shown with their passwords masked).
"""
