"""Trainer adapters: each meets a training library where it expects an environment, over the control-plane
client (``simulator.gateway.client``), with no task or reward logic of its own. The libraries are optional extras."""
