"""The report pages' template engine: Jinja2 with autoescape over the package's templates.

Every value a template prints is HTML-escaped unless it is marked safe. Two kinds are: the
SVG that matplotlib drew (``plots.to_svg``; the templates say ``|safe``) and JSON made by
``json_script`` below, which returns it marked.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import markupsafe


@functools.cache
def environment() -> Any:
    """The one Jinja2 environment: templates from ``sim/report/templates``, autoescape on,
    and a missing value an error instead of an empty string."""
    import jinja2  # loads only when a page is written: it would add ~50 ms to every `sim` start

    return jinja2.Environment(loader=jinja2.PackageLoader("sim.report", "templates"), autoescape=True,
                              undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                              keep_trailing_newline=True)


def render(template: str, **values: Any) -> str:
    """The template rendered with these values."""
    return environment().get_template(template).render(**values)


def json_script(value: object) -> markupsafe.Markup:
    """JSON for a ``<script type="application/json">`` element, marked safe for the template.

    HTML-escaping it would be wrong: a script element's text is never unescaped, so the JSON
    would no longer parse. What makes it safe instead: <, > and & become \\u escapes, so no
    ``</script>`` or ``<!--`` inside a name can end the element, and the JSON still parses back
    to the same value.
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return markupsafe.Markup(text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e"))
