"""Scenarios: stories that unfold across apps, each writing its data and the tasks that data makes possible.

A **family** (``family.Family``) is one kind of work, documented in one line (the skill it tests). Given a
world (``view.WorldView``: its people, accounts, deals, calendars and documents, read from the world's files)
and a seeded ``random.Random``, a family writes one task through a ``draft.Draft``:

- the scene: setup calls that place the scenario's data in every app it touches, acting as the people of the
  world or as outsiders (a customer's mail, a deal, a sheet, a meeting); ``save`` keeps a result (a new
  record's id) for later calls; distractors (near-duplicates, superseded mails, clashes) are part of it;
- the prompt, stated as a manager would state the goal, not the steps;
- bindings, criteria and the oracle, derived from the same facts the scene wrote, so the answer is known by
  construction.

The draft is plain data in the task format (``tasks/model.py``): this room imports the apps' records, never
``tasks``. A family that cannot place its data on a world raises ``Skip`` with the reason; the corpus reports
it and goes on. ``corpus.py`` runs every family of ``registry.FAMILIES`` over the worlds of a plan,
deterministically by seed; ``tasks.corpus`` validates, measures and caches what it writes.
"""
