"""Tasks prove themselves: every task's verifier is run against right work and wrong work, with figures.

``check.Checker`` runs the scripted runs of a task on fresh in-process episodes (``agents``,
``mutants``, ``hacks``), ``gates`` judges them, ``stats`` gives the Wilson bounds and Kendall's tau,
``report`` writes the JSON and Markdown tables. ``officeworld tasks check`` is the command.
"""
