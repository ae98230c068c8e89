"""Presenting a batch run: tables on the terminal, and self-contained HTML pages.

- ``terminal``: the headline sentence and the lethality tables (rich).
- ``page``: the HTML lethality report of a run folder (``report.html``).
- ``plots``: its matplotlib figures as inline SVG; ``viewer``: its embedded battle viewer.
- ``decision``: the ``sim compare`` and ``sim tune`` results, on the terminal and as a page.
- ``spread``: the ``sim spread`` sentence and table (80 columns) and its page.
- ``render``: the Jinja2 environment (autoescape on) over ``templates/`` (the pages, their
  stylesheet and script), package data installed with the code.

May import: ``sim.replay``, ``sim.decide``, ``sim.batch`` and the layers below;
never the server or a command.
"""

from sim.report import decision
from sim.report.page import REPORT, render_page, write_report
from sim.report.terminal import (
    STEP_COLUMNS,
    day_table,
    difficulty_text,
    dist_text,
    headline,
    morale_rows,
    pct,
    print_summary,
    step_rows,
    summary_tables,
)
from sim.report.viewer import explain, viewer_states

__all__ = [
    "REPORT",
    "STEP_COLUMNS",
    "day_table",
    "decision",
    "difficulty_text",
    "dist_text",
    "explain",
    "headline",
    "morale_rows",
    "pct",
    "print_summary",
    "render_page",
    "step_rows",
    "summary_tables",
    "viewer_states",
    "write_report",
]
