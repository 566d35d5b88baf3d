"""The ``officeworld`` command line: the root command (``main``) and its ``worlds``, ``tasks`` and ``gui`` groups."""

import sys

from simulator.cli.ahead import hold_collector, serve_with_system_malloc, stamp_world_ahead

# Before anything else is imported: a server runs again with PYTHONMALLOC=malloc (simulator/store/memory.py),
# then has its world's files stat'ed in a child process while it imports the rest, the collector held off
# meanwhile (simulator/cli/ahead.py).
serve_with_system_malloc()
hold_collector(sys.argv)
stamp_world_ahead(sys.argv)
