"""The simulator: episodes over worlds, the servers agents and trainers talk to, and the CLIs.

One room (subpackage) per job; docs/architecture.md maps them:
``store`` episodes over compiled worlds · ``gateway`` the server and control API (and its client) ·
``agent`` the thin ``ow`` and the shell jail · ``cli`` the ``officeworld`` command · ``tasks`` the task
catalog and checks · ``bench`` figures · ``service`` app services and deployment · ``gui`` the GUI and
the agents' browser · ``runner`` agent rollouts · ``trajectories`` trajectory files.
"""
