"""``sim serve``: a local web page and a small JSON API over the same engine.

A GM builds an encounter from the bestiary (or edits its YAML), and the page
shows its lethality refining live, answers "one more / one fewer of this
monster" (a paired compare), "how many can I add" (a tune) and "how much does it
hang on play" (a spread), and opens the full report. Nothing here plays a battle
itself: every figure comes from the batch runners, compare, tune and spread that
the CLI uses, so a batch of the page equals ``sim batch --json`` for the same
scenario and seed.

Modules: ``guard`` (token, Host/Origin, body bounds), ``workspace`` (the
server's own temporary folder: posted text becomes files the loaders read),
``jobs`` (batches in flight, cancelled by an edit), ``plays`` (what a job plays and
how), ``spreads`` (the spread box's job), ``compose`` (the form's
encounter as YAML and back), ``app`` (the routes), ``server`` (binding and
starting). May import everything below the CLI; the CLI imports it.
"""
