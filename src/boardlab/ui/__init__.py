"""Doors for people: the ``boardlab`` command line (every command), the terminal board and the
web server with its page."""
