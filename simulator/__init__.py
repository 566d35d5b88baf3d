"""The simulator: episodes over worlds, the servers agents and trainers talk to, and the CLIs."""
