"""The hardened composer: YAML text to a node graph, and the graph to plain data.

pyyaml's parser gives the events; ``compose`` turns them into nodes without recursion
(``MAX_DEPTH``), refusing written tags and bad aliases, and ``Builder`` walks the
nodes into plain data with the mark of every value and key, refusing duplicate and
merge keys and stopping alias expansion at a node budget (billion laughs).
"""

from __future__ import annotations

import re
from typing import Protocol, cast

import attrs
import yaml
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

from sim.errors import Problem, ScenarioError
from sim.yamlsrc.source import Mark, Path, format_path, shorten, whole_file

MAX_DEPTH = 100

_CORE = "tag:yaml.org,2002:"
# Resolved tags whose value the SafeLoader constructor turns into plain data. The
# resolver also finds timestamp, value ("=") and merge ("<<"): those stay the text
# the author wrote, so a date never silently becomes a datetime.
_CONSTRUCTED = frozenset(_CORE + t for t in ("null", "bool", "int", "float", "str"))
_MERGE = _CORE + "merge"
# Numbers only YAML 1.1 reads as such, and not as YAML 1.2 (nor a GM) would: 010 is 8 (octal),
# 1:30 is 90 (base 60), 0b11 is 3. Refused, so that a value never silently means another.
_AMBIGUOUS_NUMBER = re.compile(r"[-+]?(0[0-9_]+|0b[01_]+|[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?)")
# libyaml parses about ten times faster; pyyaml's own parser yields the same events.
_PARSER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def is_blank_document(root: yaml.Node) -> bool:
    """Whether the document is empty though the text is not (a lone ``---``)."""
    # A lone "---" composes to an empty plain scalar: as empty as an empty file.
    # (Plain style is None from pyyaml's parser but "" from libyaml's.)
    return isinstance(root, yaml.ScalarNode) and root.value == "" and not root.style


def _yaml_mark(mark: yaml.Mark | None) -> Mark | None:
    return None if mark is None else Mark(mark.line + 1, mark.column + 1)


def _node_mark(node: yaml.Node) -> Mark:
    return Mark(node.start_mark.line + 1, node.start_mark.column + 1)


def compose(text: str, display: str) -> tuple[yaml.Node | None, Composer]:
    """Parse ``text`` into a node graph, translating every parser failure."""
    parser = None
    try:
        parser = _PARSER(text)
        composer = Composer(parser)
        return composer.document(), composer
    except _Rejected as exc:
        where = exc.mark or Mark(0, 0)
        raise ScenarioError([Problem(display, where.line, where.col, "", exc.message)]) from exc
    except yaml.MarkedYAMLError as exc:
        raise ScenarioError([_syntax_problem(display, exc)]) from exc
    except yaml.YAMLError as exc:
        raise ScenarioError([whole_file(display, f"invalid YAML: {_one_line(str(exc))}")]) from exc
    except RecursionError as exc:
        # Not expected (nothing here recurses per level), but must not escape as a traceback.
        raise ScenarioError([whole_file(display, "nesting too deep")]) from exc
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
class Composer:
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
class Builder:
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
            value = self.constructor.construct_object(node)
        except (yaml.YAMLError, ValueError, OverflowError):
            # e.g. an integer with more digits than Python agrees to convert; the
            # library's own text would only talk about its internals.
            kind = node.tag.removeprefix(_CORE)
            self.report(_node_mark(node), path, f"cannot read {shorten(node.value)} as {kind}")
            return _INVALID
        if node.tag in (_CORE + "int", _CORE + "float") and _AMBIGUOUS_NUMBER.fullmatch(node.value):
            self.report(_node_mark(node), path, f"{shorten(node.value)} is an old YAML spelling of"
                        f" {value!r} (octal, binary or base 60): write {value!r}, or quote it")
            return _INVALID
        return value

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
