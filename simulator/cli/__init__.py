"""The ``officeworld`` command line: the root command (``main``) and its ``worlds``, ``tasks`` and ``gui`` groups."""

from simulator.store.memory import serve_with_system_malloc

# Before anything heavy is imported: a server runs again with PYTHONMALLOC=malloc (simulator/store/memory.py).
serve_with_system_malloc()
