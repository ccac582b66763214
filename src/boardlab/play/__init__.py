"""Playing games: the one game loop (:class:`~boardlab.play.session.Session`), the referee's
rules for agents (time limits, forfeits, agents in child processes) and the worker pool that
plays many games at once."""
