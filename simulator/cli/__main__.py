"""``python -m simulator.cli``: the ``officeworld`` command (what the images and compose run)."""

from simulator.cli.main import main

main()
