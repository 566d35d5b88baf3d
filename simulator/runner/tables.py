"""Printing the command line's tables whole: ``rich`` fits a table to the terminal (80 columns when the output
is a file or a pipe) by cutting cells, and cut task ids ("crm-close-gl…") could not be read or copied."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table


def print_whole(table: Table) -> None:
    """Print ``table`` on stdout, as wide as its widest row needs: a narrower terminal wraps the lines rather
    than cutting the cells."""
    width = Console(width=100_000).measure(table).maximum
    console = Console()
    if width > console.width:
        console = Console(width=width)
    console.print(table)
