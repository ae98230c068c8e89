"""Safe YAML loading into plain data that remembers the line:col of every node."""

from __future__ import annotations

import codecs
import hashlib
import pathlib
import re
from typing import Protocol, cast

import attrs
import yaml
from yaml.constructor import SafeConstructor
from yaml.reader import Reader
from yaml.resolver import Resolver

from sim.errors import Problem, ScenarioError
from sim.infile import open_regular

Path = tuple[str | int, ...]

MAX_BYTES = 1024 * 1024
MAX_NODES = 100_000
MAX_DEPTH = 100

_CORE = "tag:yaml.org,2002:"
# Resolved tags whose value the SafeLoader constructor turns into plain data. The
# resolver also finds timestamp, value ("=") and merge ("<<"): those stay the text
# the author wrote, so a date never silently becomes a datetime.
_CONSTRUCTED = frozenset(_CORE + t for t in ("null", "bool", "int", "float", "str"))
_MERGE = _CORE + "merge"
# libyaml parses about ten times faster; pyyaml's own parser yields the same events.
_PARSER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# The line breaks YAML counts, so our marks agree with the parser's.
_LINE_BREAK = re.compile(r"\r\n|[\r\n\x85\u2028\u2029]")
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_PLAIN_KEY_LIMIT = 40
_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


@attrs.frozen
class Mark:
    """A 1-based position in a source file."""

    line: int
    col: int


@attrs.frozen
class Source:
    """A loaded YAML file: its plain data and where each node of it was written."""

    file: str
    data: object
    marks: dict[Path, Mark]
    key_marks: dict[Path, Mark]
    sha256: str = ""  # of the very bytes parsed (so a hash never describes other bytes)

    def mark(self, path: Path) -> Mark:
        """The mark of ``path``, or of its nearest ancestor that has one."""
        for end in range(len(path), -1, -1):
            found = self.marks.get(path[:end])
            if found is not None:
                return found
        return Mark(1, 1)

    def key_mark(self, path: Path) -> Mark:
        """The mark of the key that names ``path``, else the mark of its value."""
        return self.key_marks.get(path) or self.mark(path)

    def problem(self, path: Path, message: str, at_key: bool = False) -> Problem:
        """A Problem located at ``path`` (at its key when ``at_key``)."""
        where = self.key_mark(path) if at_key else self.mark(path)
        return Problem(self.file, where.line, where.col, format_path(path), message)


def format_path(path: Path) -> str:
    """Render a path the way a reader would write it: ``sides[1].members[2].name``."""
    out: list[str] = []
    for part in path:
        if isinstance(part, str) and len(part) <= _PLAIN_KEY_LIMIT and _PLAIN_KEY.fullmatch(part):
            out.append(f".{part}" if out else part)
        elif isinstance(part, int) and not isinstance(part, bool):
            out.append(f"[{part}]")
        else:
            # Keys with spaces or dots, and non-string keys, stay unambiguous in brackets;
            # a very long key is cut there too, so the message stays one short line.
            out.append(f"[{shorten(part)}]")
    return "".join(out)


def shorten(value: object, limit: int = 40) -> str:
    """A short one-line repr of ``value`` for messages, cut with '…' past ``limit``."""
    if not isinstance(value, str):
        text = repr(value)
        return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"
    pieces = [_escape_char(ch) for ch in value]
    if sum(map(len, pieces)) + 2 <= limit:
        return "'" + "".join(pieces) + "'"
    # Cut between whole escapes, and keep the closing quote so it still reads as a string.
    budget, kept = limit - 3, []
    for piece in pieces:
        if len(piece) > budget:
            break
        kept.append(piece)
        budget -= len(piece)
    return "'" + "".join(kept) + "…'"


def _escape_char(ch: str) -> str:
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    return ch if ch.isprintable() else repr(ch)[1:-1]


def load_yaml(path: pathlib.Path, display: str | None = None) -> Source:
    """Read and load one YAML file; ``display`` is the name used in messages."""
    name = display if display is not None else str(path)
    try:
        with open_regular(path) as stream:
            # One byte past the limit is enough to know the file is too big.
            raw = stream.read(MAX_BYTES + 1)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ScenarioError([_whole_file(name, f"cannot read file: {reason}")]) from exc
    return load_yaml_text(raw, name)


def load_yaml_text(text: str | bytes, display: str) -> Source:
    """Load YAML text (bytes must be UTF-8) into a Source, or raise ScenarioError."""
    # Sized before anything else touches the text; surrogates are reported below.
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        raise ScenarioError([_whole_file(display, "file is larger than 1 MiB")])
    decoded = _decode(text, display) if isinstance(text, bytes) else text
    # The parsers skip a leading BOM without counting it; so do we, to agree on columns.
    decoded = decoded.removeprefix("\ufeff")
    _check_characters(decoded, display)
    if not decoded.strip():
        # Checked before parsing: libyaml calls a tab-only line a syntax error.
        raise ScenarioError([_whole_file(display, "file is empty")])
    root, composer = _compose(decoded, display)
    if root is None or (_is_blank_document(root) and id(root) not in composer.refused):
        raise ScenarioError([_whole_file(display, "file is empty")])
    # Only alias expansion is limited: a big file written out in full is fine.
    builder = _Builder(display, composer.refused, max(MAX_NODES, composer.composed))
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


def _whole_file(display: str, message: str) -> Problem:
    return Problem(display, 0, 0, "", message)


def _is_blank_document(root: yaml.Node) -> bool:
    # A lone "---" composes to an empty plain scalar: as empty as an empty file.
    # (Plain style is None from pyyaml's parser but "" from libyaml's.)
    return isinstance(root, yaml.ScalarNode) and root.value == "" and not root.style


def _yaml_mark(mark: yaml.Mark | None) -> Mark | None:
    return None if mark is None else Mark(mark.line + 1, mark.column + 1)


def _node_mark(node: yaml.Node) -> Mark:
    return Mark(node.start_mark.line + 1, node.start_mark.column + 1)


def _compose(text: str, display: str) -> tuple[yaml.Node | None, _Composer]:
    """Parse ``text`` into a node graph, translating every parser failure."""
    parser = None
    try:
        parser = _PARSER(text)
        composer = _Composer(parser)
        return composer.document(), composer
    except _Rejected as exc:
        where = exc.mark or Mark(0, 0)
        raise ScenarioError([Problem(display, where.line, where.col, "", exc.message)]) from exc
    except yaml.MarkedYAMLError as exc:
        raise ScenarioError([_syntax_problem(display, exc)]) from exc
    except yaml.YAMLError as exc:
        raise ScenarioError([_whole_file(display, f"invalid YAML: {_one_line(str(exc))}")]) from exc
    except RecursionError as exc:
        # Not expected (nothing here recurses per level), but must not escape as a traceback.
        raise ScenarioError([_whole_file(display, "nesting too deep")]) from exc
    finally:
        if parser is not None:
            parser.dispose()


def _syntax_problem(display: str, exc: yaml.MarkedYAMLError) -> Problem:
    where = _yaml_mark(exc.problem_mark) or _yaml_mark(exc.context_mark) or Mark(0, 0)
    message = exc.problem or exc.context or "unknown error"
    context = _yaml_mark(exc.context_mark)
    if exc.problem and exc.context and context is not None:
        message += f" ({exc.context} at {context.line}:{context.col})"
    return Problem(display, where.line, where.col, "", f"invalid YAML: {_one_line(message)}")


def _one_line(text: str) -> str:
    return " ".join(text.split())


class _Rejected(Exception):
    """A problem severe enough to stop composing or building at once."""

    def __init__(self, mark: Mark | None, path: Path, message: str) -> None:
        super().__init__(message)
        self.mark = mark
        self.path = path
        self.message = message


class _Events(Protocol):
    """The event interface shared by pyyaml's C and pure-Python parsers."""

    def get_event(self) -> yaml.Event: ...
    def peek_event(self) -> yaml.Event: ...
    def check_event(self, *choices: type[yaml.Event]) -> bool: ...


@attrs.define
class _Composer:
    """Builds pyyaml nodes from parser events, with a loop instead of recursion.

    pyyaml's own composer recurses once per nesting level and cannot tell a
    written tag from a resolved one; this one stops at MAX_DEPTH and records
    every node it refuses, so the builder can report them with their paths.
    """

    events: _Events
    resolver: Resolver = attrs.Factory(Resolver)
    anchors: dict[str, yaml.Node] = attrs.Factory(dict)
    # Ids of collections still open: an alias to one of them would be endless.
    open_ids: set[int] = attrs.Factory(set)
    # Node id -> why the node has no value (a written tag, a bad alias).
    refused: dict[int, str] = attrs.Factory(dict)
    composed: int = 0  # nodes written out in the text; aliases are not counted

    def document(self) -> yaml.Node | None:
        """The single document of the stream, or None if there is none."""
        self.events.get_event()  # stream start
        if self.events.check_event(yaml.StreamEndEvent):
            return None
        self.events.get_event()  # document start
        root = self.node()
        self.events.get_event()  # document end
        if not self.events.check_event(yaml.StreamEndEvent):
            where = _yaml_mark(self.events.peek_event().start_mark)
            raise _Rejected(where, (), "more than one YAML document (a file holds one)")
        return root

    def node(self) -> yaml.Node:
        """Compose the next complete node, children included."""
        # Each open collection with the children composed for it so far.
        stack: list[tuple[yaml.CollectionNode, list[yaml.Node]]] = []
        while True:
            event = self.events.get_event()
            if len(stack) > MAX_DEPTH and not isinstance(event, yaml.CollectionEndEvent):
                where = _yaml_mark(event.start_mark)
                raise _Rejected(where, (), f"nesting deeper than {MAX_DEPTH}")
            if isinstance(event, yaml.CollectionStartEvent):
                stack.append((self.open_collection(event), []))
                continue
            if isinstance(event, yaml.CollectionEndEvent):
                node = self.close_collection(*stack.pop(), event)
            elif isinstance(event, yaml.AliasEvent):
                node = self.alias(event)
            else:
                node = self.scalar(cast(yaml.ScalarEvent, event))
            if not stack:
                return node
            stack[-1][1].append(node)

    def register(self, node: yaml.Node, event: yaml.NodeEvent) -> yaml.Node:
        """Count ``node``, register its anchor, and refuse it if a tag was written."""
        self.composed += 1
        if event.anchor is not None:
            self.anchors[event.anchor] = node
        tag = cast("str | None", getattr(event, "tag", None))
        if tag is not None:
            shown = "!!" + tag.removeprefix(_CORE) if tag.startswith(_CORE) else tag
            self.refused[id(node)] = f"YAML tags are not allowed (got {shorten(shown, 60)})"
        return node

    def scalar(self, event: yaml.ScalarEvent) -> yaml.Node:
        tag = event.tag or self.resolver.resolve(yaml.ScalarNode, event.value, event.implicit)
        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
        return self.register(node, event)

    def open_collection(self, event: yaml.CollectionStartEvent) -> yaml.CollectionNode:
        if isinstance(event, yaml.SequenceStartEvent):
            node: yaml.CollectionNode = yaml.SequenceNode(
                event.tag or _CORE + "seq", [], event.start_mark, None, event.flow_style
            )
        else:
            node = yaml.MappingNode(event.tag or _CORE + "map", [], event.start_mark, None, event.flow_style)
        self.open_ids.add(id(node))
        self.register(node, event)
        return node

    def close_collection(
        self, node: yaml.CollectionNode, items: list[yaml.Node], event: yaml.Event
    ) -> yaml.Node:
        if isinstance(node, yaml.MappingNode):
            # Events alternate key, value; a mapping always closes after a value.
            node.value = list(zip(items[::2], items[1::2], strict=True))
        else:
            node.value = items
        node.end_mark = event.end_mark
        self.open_ids.discard(id(node))
        return node

    def alias(self, event: yaml.AliasEvent) -> yaml.Node:
        target = self.anchors.get(event.anchor)
        if target is not None and id(target) not in self.open_ids:
            return target
        # Stand in a null at the alias itself, so the builder reports it with its path.
        stand_in = yaml.ScalarNode(_CORE + "null", "", event.start_mark, event.end_mark)
        if target is None:
            why = f"unknown alias '*{event.anchor}' (no '&{event.anchor}' before it)"
        else:
            why = f"alias '*{event.anchor}' is used inside its own anchor (endless nesting)"
        self.refused[id(stand_in)] = why
        return stand_in


def _duplicate_message(key: object, first_key: object, first: Mark) -> str:
    message = f"duplicate key {shorten(key)} (first at line {first.line}"
    if type(first_key) is not type(key):
        message += f" as {shorten(first_key)}"
    return message + ")"


_INVALID = object()  # stands for a node that was reported and has no value


@attrs.define
class _Builder:
    """Walks the node graph into plain data, collecting marks and problems."""

    file: str
    refused: dict[int, str]
    max_nodes: int
    problems: list[Problem] = attrs.Factory(list)
    marks: dict[Path, Mark] = attrs.Factory(dict)
    key_marks: dict[Path, Mark] = attrs.Factory(dict)
    count: int = 0
    # A node reached through several aliases should be reported only once.
    seen: set[tuple[Mark, str]] = attrs.Factory(set)
    # Constructs scalars only; collections are built here, never by pyyaml.
    constructor: SafeConstructor = attrs.Factory(SafeConstructor)

    def build_document(self, root: yaml.Node) -> object:
        """The plain data of the document (meaningless if problems were reported)."""
        try:
            return self.build(root, ())
        except _Rejected as exc:
            self.report(exc.mark or Mark(0, 0), exc.path, exc.message)
            return None

    def report(self, mark: Mark, path: Path, message: str) -> None:
        if (mark, message) not in self.seen:
            self.seen.add((mark, message))
            where = format_path(path)
            self.problems.append(Problem(self.file, mark.line, mark.col, where, message))

    def visit(self, node: yaml.Node, path: Path) -> Mark:
        """Count a node against the limits and return its mark."""
        mark = _node_mark(node)
        self.count += 1
        if self.count > self.max_nodes:
            # Aliases can multiply a small file enormously (billion laughs): stop.
            raise _Rejected(mark, path, "document too large after expanding aliases")
        if len(path) > MAX_DEPTH:
            # Aliases can also nest deeper than the text that the composer checked.
            raise _Rejected(mark, path, f"nesting deeper than {MAX_DEPTH}")
        return mark

    def build(self, node: yaml.Node, path: Path) -> object:
        """The plain value of ``node``, or _INVALID after reporting why not."""
        mark = self.visit(node, path)
        self.marks[path] = mark
        if id(node) in self.refused:
            self.report(mark, path, self.refused[id(node)])
            return _INVALID
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node, path)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, (*path, i)) for i, item in enumerate(node.value)]
        return self.mapping(node, path)

    def scalar(self, node: yaml.ScalarNode, path: Path) -> object:
        if node.tag not in _CONSTRUCTED:
            return node.value
        try:
            return self.constructor.construct_object(node)
        except (yaml.YAMLError, ValueError, OverflowError):
            # e.g. an integer with more digits than Python agrees to convert; the
            # library's own text would only talk about its internals.
            kind = node.tag.removeprefix(_CORE)
            self.report(_node_mark(node), path, f"cannot read {shorten(node.value)} as {kind}")
            return _INVALID

    def mapping(self, node: yaml.MappingNode, path: Path) -> dict[object, object]:
        out: dict[object, object] = {}
        # Each loaded key with the key that first gave it: 1 and true collide in
        # a Python dict, so they are duplicates here even though YAML differs.
        firsts: dict[object, tuple[object, Mark]] = {}
        for key_node, value_node in node.value:
            key = self.key(key_node, path)
            if key is _INVALID:
                continue
            key_mark = _node_mark(key_node)
            # Paths hold the key as loaded so lookups by data key find its mark,
            # even for the rare float/null keys that validation refuses anyway.
            key_path = (*path, cast("str | int", key))
            if key in firsts:
                self.report(key_mark, key_path, _duplicate_message(key, *firsts[key]))
                continue
            firsts[key] = (key, key_mark)
            self.key_marks[key_path] = key_mark
            out[key] = self.build(value_node, key_path)
        return out

    def key(self, node: yaml.Node, path: Path) -> object:
        """The plain value of a mapping key, or _INVALID after reporting why not."""
        mark = self.visit(node, path)
        if id(node) in self.refused:
            self.report(mark, path, self.refused[id(node)])
            return _INVALID
        if not isinstance(node, yaml.ScalarNode):
            kind = "list" if isinstance(node, yaml.SequenceNode) else "mapping"
            self.report(mark, path, f"a mapping key must be a single value, not a {kind}")
            return _INVALID
        if node.tag == _MERGE:
            self.report(mark, path, "merge keys ('<<') are not supported")
            return _INVALID
        return self.scalar(node, path)
