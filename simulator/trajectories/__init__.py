"""Trajectory files: one JSON Lines file per episode, written as the episode runs.

    files.py    the format (header, steps, footer), the recorder that streams it, the reader
    replay.py   re-run a file's writes on a fresh episode, compare, regrade with the current task
    export.py   OpenAI chat messages with tool calls and results (SFT data)
    cli.py      ``officeworld trajectories export``, ``officeworld replay``, ``officeworld grade``
"""
