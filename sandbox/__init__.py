"""Where things run: in-process, local processes from compose.yaml, Docker, and a bubblewrap jail.

Knows nothing of apps or tasks. ``config.open_backend(config)`` starts a backend chosen by a
tagged config (``kind``: inprocess, processes, docker); ``jail.Jail`` runs a shell agent's commands.
"""
