"""The ``officeworld`` command line: the root command (``main``) and its ``worlds``, ``tasks`` and ``gui`` groups."""
