"""Worlds: company data rooms shipped as folders, and the code that reads and checks them.

A world is a folder holding ``world.yaml`` (company, date, people) plus one sub-folder per app.
``load_world`` reads and checks one; ``find_world`` resolves a name or a path.
"""

from worlds.digest import content_hash
from worlds.loader import WorldError, find_world, load_info, load_world, world_names
from worlds.model import World

__all__ = ["World", "WorldError", "content_hash", "find_world", "load_info", "load_world", "world_names"]
