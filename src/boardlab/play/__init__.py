"""Playing games: the one game loop (:class:`~boardlab.play.session.Session`), the referee's
rules for agents (time limits, forfeits, agents in child processes) and the worker pools: one
that plays many games at once and one for trusted compiled work (:mod:`~boardlab.play.pool`), and
one whose agents answer requests one decision at a time (:mod:`~boardlab.play.agent_pool`, the
web server's)."""
