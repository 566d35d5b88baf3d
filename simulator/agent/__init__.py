"""``ow``, the agent's thin command line (``ow``, ``output``: standard library only, and so is this
file), and the jail or proxy a shell agent runs behind (``shell``)."""
