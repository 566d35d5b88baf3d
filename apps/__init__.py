"""The apps: high-fidelity clones of the software a company uses, each built on ``apps.kit``."""
