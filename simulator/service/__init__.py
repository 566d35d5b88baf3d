"""Running the simulator as services: one app's admin API (``app_service``), compose's backends
(``deploy``), an ASGI app on a loopback port in a thread (``serve``)."""
