"""Live play: the hosted tables of one server process, their sockets, timers and bus, and the
database side of their moves."""
