"""officeworld's OpenEnv server (``server.app:app``, what openenv.yaml names)."""
