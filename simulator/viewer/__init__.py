"""The trajectory viewer: static HTML of trajectory files (``officeworld view``, the server's ``/v1/view``).

    episode.py   what one file shows: steps marked by kind, each write's state diff (by replay), citations
    compare.py   rollouts of one task side by side, and where they first diverge
    render.py    the HTML pages (Jinja templates in ``templates/``), self-contained and offline
"""
