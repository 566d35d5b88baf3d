"""``officeworld bench``: in-process figures (``figures``), over HTTP with the server in its own process
(``served``, ``scale``), under load (``load``) and for trainers (``trainer``)."""
