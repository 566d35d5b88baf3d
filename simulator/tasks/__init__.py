"""The simulator's side of tasks: a server's catalog (``catalog``), ``officeworld tasks check``
(``check``) and the agent surfaces it drives (``surfaces``)."""
