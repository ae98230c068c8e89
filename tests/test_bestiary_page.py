"""docs/reference/bestiary.md says what the shipped bestiary holds (it is generated from it)."""

from __future__ import annotations

import difflib

from tests.bestiary_page import PAGE, render
from tests.scenario.test_shipped_bestiary import shipped


def test_page_matches_bestiary() -> None:
    """The page is exactly what tests/bestiary_page.py makes of bestiary/ (and scenarios/)
    today: an entry added, removed or changed without writing the page again fails here."""
    page = PAGE.read_text(encoding="utf-8")
    want = render()
    diff = "".join(difflib.unified_diff(page.splitlines(True), want.splitlines(True),
                                        "docs/reference/bestiary.md", "generated", n=0))
    assert page == want, (f"the bestiary page is out of date; write it again with"
                          f" `.venv/bin/python -m tests.bestiary_page`:\n{diff[:3000]}")


def test_page_lists_every_entry_once() -> None:
    """Each entry is one row of its system's section (a render that dropped some would pass
    the first test once written)."""
    sections = PAGE.read_text(encoding="utf-8").split("\n## ")[1:]
    rows = {part.split("\n", 1)[0]: [line.split("**")[1] for line in part.splitlines()
                                     if line.startswith("| **")] for part in sections}
    assert {rules: sorted(names) for rules, names in rows.items()} == \
        {rules: sorted(entries) for rules, entries in shipped().items()}
