"""Where things run: sandbox backends (in-process today; processes, docker and a jail to come)."""
