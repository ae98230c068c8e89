"""Loading one YAML file or text: size, encoding and character checks, then the composer.

Everything refused here is a ``ScenarioError`` with a line:col where one exists.
"""

from __future__ import annotations

import codecs
import difflib
import hashlib
import pathlib
import re

from yaml.reader import Reader

from sim.errors import Problem, ScenarioError
from sim.io.infile import open_regular
from sim.yamlsrc.compose import Builder, compose, is_blank_document
from sim.yamlsrc.source import Mark, Source, shorten, whole_file

MAX_BYTES = 1024 * 1024
MAX_NODES = 100_000
# The line breaks YAML counts, so our marks agree with the parser's.
_LINE_BREAK = re.compile(r"\r\n|[\r\n\x85\u2028\u2029]")


def load_yaml(path: pathlib.Path, display: str | None = None) -> Source:
    """Read and load one YAML file; ``display`` is the name used in messages."""
    name = display if display is not None else str(path)
    return load_yaml_text(_read(path, name), name)


def load_marked(path: pathlib.Path, display: str, markers: tuple[str, ...]) -> Source | None:
    """``load_yaml`` of a file another file names (a day's encounter, a file of a bestiary
    folder), which may be anything: None unless its top level holds one of ``markers``
    (``sides`` for a scenario, ``creatures`` for a bestiary file, ``steps`` for a day). Until
    a file is known to be one of sim's, none of it may be echoed: its problems (an old YAML
    spelling, a duplicate key, a syntax error all quote it) are told only when a top-level
    line of a marker shows it is one. A file that cannot be read at all is told so: that
    quotes nothing of it."""
    raw = _read(path, display)
    try:
        source = load_yaml_text(raw, display)
    except ScenarioError:
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        keys = "|".join(map(re.escape, markers))
        if re.search(rf"(?m)^({keys})[ \t]*:", text.removeprefix("\ufeff")):
            raise
        return None
    known = isinstance(source.data, dict) and any(marker in source.data for marker in markers)
    return source if known else None


def _read(path: pathlib.Path, name: str) -> bytes:
    try:
        with open_regular(path) as stream:
            # One byte past the limit is enough to know the file is too big.
            return stream.read(MAX_BYTES + 1)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        near = _near_name(path) if isinstance(exc, FileNotFoundError) else ""
        raise ScenarioError([whole_file(name, f"cannot read file: {reason}{near}")]) from exc


def _near_name(path: pathlib.Path) -> str:
    """``; did you mean 'first.yaml'?`` for a misspelt file name: the closest YAML file of its
    folder (``frist.yaml``), else the names there when few enough to read at a glance."""
    try:
        names = sorted(f.name for f in path.parent.iterdir() if f.suffix in (".yaml", ".yml") and f.is_file())
    except OSError:
        return ""
    close = difflib.get_close_matches(path.name, names, n=1, cutoff=0.6)
    if not close:
        return ""
    shown = str(path.parent / close[0]) if str(path.parent) != "." else close[0]
    return f"; did you mean {shorten(shown, 300)}?"


def load_yaml_text(text: str | bytes, display: str) -> Source:
    """Load YAML text (bytes must be UTF-8) into a Source, or raise ScenarioError."""
    # Sized before anything else touches the text; surrogates are reported below.
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        raise ScenarioError([whole_file(display, "file is larger than 1 MiB")])
    decoded = _decode(text, display) if isinstance(text, bytes) else text
    # The parsers skip a leading BOM without counting it; so do we, to agree on columns.
    decoded = decoded.removeprefix("\ufeff")
    _check_characters(decoded, display)
    if not decoded.strip():
        # Checked before parsing: libyaml calls a tab-only line a syntax error.
        raise ScenarioError([whole_file(display, "file is empty")])
    root, composer = compose(decoded, display)
    if root is None or (is_blank_document(root) and id(root) not in composer.refused):
        raise ScenarioError([whole_file(display, "file is empty")])
    # Only alias expansion is limited: a big file written out in full is fine.
    builder = Builder(display, composer.refused, max(MAX_NODES, composer.composed))
    data = builder.build_document(root)
    if builder.problems:
        raise ScenarioError(builder.problems)
    raw = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    return Source(display, data, builder.marks, builder.key_marks, hashlib.sha256(raw).hexdigest())


def _decode(raw: bytes, display: str) -> str:
    raw = raw.removeprefix(codecs.BOM_UTF8)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        # Everything before the first bad byte decodes, so its lines can be counted.
        where = _mark_after(raw[: exc.start].decode("utf-8"))
        message = f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})"
        raise ScenarioError([Problem(display, where.line, where.col, "", message)]) from exc


def _check_characters(text: str, display: str) -> None:
    # The parsers refuse these too, but report a byte or char offset, not a line:col;
    # this also catches lone surrogates, which libyaml cannot even be handed.
    bad = Reader.NON_PRINTABLE.search(text)
    if bad is not None:
        where = _mark_after(text[: bad.start()])
        char = bad.group()
        message = f"character {shorten(char)} (U+{ord(char):04X}) is not allowed in YAML"
        raise ScenarioError([Problem(display, where.line, where.col, "", message)])


def _mark_after(text: str) -> Mark:
    """The mark of the character that would follow ``text``."""
    line, line_start = 1, 0
    for brk in _LINE_BREAK.finditer(text):
        line, line_start = line + 1, brk.end()
    return Mark(line, len(text) - line_start + 1)

