"""``--set PATH=VALUE``: one-off edits of a scenario's YAML before it is validated.

PATH is written the way our error messages write paths, by index or by name:
``sides[1].members[0].count``, ``sides[warren].members[goblin].count``,
``options.destiny_points``. A name in brackets picks the list item whose
``name`` is that name, else the one whose ``use`` is (``members[goblin]`` for
``{use: goblin, count: 6}``). VALUE is YAML, read by our own safe loader.

The edit happens on the plain data, before validation, so an overridden value
is checked exactly like a written one; its problems say which ``--set`` made it.
A missing last key is added (``hp`` over a bestiary entry's); a missing key on
the way is added as a mapping (``options.morale`` with no ``options:``), and
validation then refuses it if it is no key of the schema, with a did-you-mean.
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Sequence

import attrs

from sim.errors import Problem, ScenarioError
from sim.yamlsrc import Path, Source, format_path, load_yaml_text, shorten

MAX_OVERRIDES = 100
MAX_TEXT = 2000

Selector = str | int  # a key, a list index, or (in brackets) a list item's name


@attrs.frozen
class Step:
    """One step of an override path: a mapping key, or a bracketed index or name."""

    key: Selector
    bracket: bool = False


@attrs.frozen
class Override:
    """One ``--set PATH=VALUE``, parsed."""

    text: str  # as the user wrote it, for the manifest, logs and messages
    path: tuple[Step, ...]
    value: object


def _fail(file: str, text: str, message: str) -> ScenarioError:
    return ScenarioError([Problem(file, 0, 0, f"--set {shorten(text, 80)[1:-1]}", message)])


def split_assignment(text: str) -> tuple[str, str] | None:
    """PATH and VALUE at the first '=' outside brackets (names may hold '=')."""
    depth = 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        elif ch == "=" and depth == 0:
            return text[:i], text[i + 1:]
    return None


def _steps(path_text: str) -> list[Step] | str:
    """The steps of PATH, or what is wrong with it."""
    steps: list[Step] = []
    i, n = 0, len(path_text)
    expect_key = True
    while i < n:
        ch = path_text[i]
        if ch == "[":
            end = path_text.find("]", i)
            if end < 0:
                return "a '[' is never closed"
            inside = path_text[i + 1:end].strip()
            if not inside:
                return "empty brackets '[]'"
            # An index is ASCII digits: '²' is a digit that int() refuses, so it is a name.
            key: Selector = int(inside) if inside.isascii() and inside.isdigit() else inside
            steps.append(Step(key, bracket=True))
            i, expect_key = end + 1, False
        elif ch == ".":
            if expect_key:
                return "an empty key ('..' or a leading '.')"
            i, expect_key = i + 1, True
        else:
            end = i
            while end < n and path_text[end] not in ".[":
                end += 1
            word = path_text[i:end].strip()
            if not expect_key:
                return f"a key must follow '.' (got {shorten(word)})"
            steps.append(Step(word))
            i, expect_key = end, False
    if not steps or expect_key:
        return "the path is empty or ends with '.'"
    return steps


def parse(text: str, file: str = "--set") -> Override:
    """Parse one ``PATH=VALUE``; ScenarioError (exit 2) when it cannot be."""
    if len(text) > MAX_TEXT:
        raise _fail(file, text, f"at most {MAX_TEXT} characters")
    split = split_assignment(text)
    if split is None and text.count("[") > text.count("]"):
        raise _fail(file, text, "bad path: a '[' is never closed")
    if split is None:
        raise _fail(file, text, "must be PATH=VALUE, e.g. sides[goblins].members[goblin].count=4")
    path_text, value_text = split
    steps = _steps(path_text.strip())
    if isinstance(steps, str):
        raise _fail(file, text, f"bad path: {steps}")
    if not value_text.strip():
        raise _fail(file, text, "needs a value after '=' (YAML: 4, 1d8+2, true, [a, b]...)")
    try:
        value = load_yaml_text(value_text, "--set").data
    except ScenarioError as exc:
        reason = exc.problems[0].message if exc.problems else "not YAML"
        raise _fail(file, text, f"the value is not valid YAML: {reason}") from exc
    return Override(text, tuple(steps), value)


def parse_all(texts: Sequence[str], file: str = "--set") -> tuple[Override, ...]:
    if len(texts) > MAX_OVERRIDES:
        raise _fail(file, texts[0], f"at most {MAX_OVERRIDES} overrides")
    return tuple(parse(text, file) for text in texts)


def _hint(got: object, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(str(got), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _names(names: Sequence[str], most: int = 8) -> str:
    """``; the names there: goblin, wolf``: what a misspelt name could have been."""
    unique = list(dict.fromkeys(names))
    if not unique:
        return ""
    shown = ", ".join(shorten(n)[1:-1] for n in unique[:most])
    return f"; the names there: {shown}" + (f" and {len(unique) - most} more" if len(unique) > most else "")


def _item_names(items: list) -> list[str]:
    names = []
    for item in items:
        if isinstance(item, dict):
            for key in ("name", "use"):
                if isinstance(item.get(key), str):
                    names.append(item[key])
    return names


def _find_named(items: list, name: str) -> list[int]:
    """Items named ``name``, else items made from the bestiary entry ``name``."""
    for key in ("name", "use"):
        found = [i for i, item in enumerate(items)
                 if isinstance(item, dict) and isinstance(item.get(key), str)
                 and item[key].strip() == name]
        if found:
            return found
    return []


def _select(node: object, step: Step, where: Path) -> int | str:
    """The concrete key or index ``step`` names in ``node``; raises ValueError with why."""
    shown = format_path(where) or "the scenario"
    if isinstance(node, list):
        if isinstance(step.key, int):
            if step.key >= len(node):
                msg = f"{shown} has {len(node)} entries (indexes 0 to {len(node) - 1}), no [{step.key}]"
                raise ValueError(msg)
            return step.key
        found = _find_named(node, step.key)
        if not found:
            names = _item_names(node)
            msg = f"no entry named {shorten(step.key)} in {shown}{_hint(step.key, names)}{_names(names)}"
            raise ValueError(msg)
        if len(found) > 1:
            msg = f"{len(found)} entries of {shown} are named {shorten(step.key)}: use an index"
            raise ValueError(msg)
        return found[0]
    if isinstance(node, dict):
        return str(step.key)
    msg = f"{shown} is {shorten(node)}, not a mapping or a list: nothing to select in it"
    raise ValueError(msg)


def apply(source: Source, overrides: Sequence[Override]) -> tuple[Source, list[tuple[Path, str]]]:
    """A copy of ``source`` with the overrides applied in order, and the concrete path each
    one set (so problems found there can say which ``--set`` made them)."""
    data = copy.deepcopy(source.data)
    touched: list[tuple[Path, str]] = []
    written: list[tuple[Path, str]] = []  # the whole path each one wrote
    for override in overrides:
        data, path, whole = _apply_one(data, override, source.file)
        for earlier, text in written:
            if earlier[:len(whole)] == whole:  # this one replaces all that one wrote
                raise _fail(source.file, override.text, f"replaces what --set {shorten(text, 80)[1:-1]}"
                            " set, which would then do nothing: give one --set for it")
        touched.append((path, override.text))
        written.append((whole, override.text))
    return attrs.evolve(source, data=data), touched


def _apply_one(data: object, override: Override, file: str) -> tuple[object, Path, Path]:
    """``data`` with ``override`` applied; the path to blame for its problems (the first key it
    added, else the path it set) and the whole concrete path it set."""
    node = data
    where: Path = ()
    created: Path | None = None  # the first key this override added, if it added one
    steps = override.path
    try:
        for number, step in enumerate(steps):
            key = _select(node, step, where)
            last = number == len(steps) - 1
            assert isinstance(node, dict | list)
            if created is None and isinstance(node, dict) and key not in node:
                created = (*where, key)
            if last:
                node[key] = copy.deepcopy(override.value)  # type: ignore[index]
            elif isinstance(node, dict) and key not in node:
                if steps[number + 1].bracket:
                    msg = f"no key '{key}' in {format_path(where) or 'the scenario'}{_hint(key, list(node))}"
                    raise ValueError(msg)
                if key == "mount" and "use" in node:
                    # Made here, {hp: 30} would replace the entry's warhorse whole (a mount
                    # written beside use: does), not edit it: a bare beast of 30 HP.
                    msg = (f"no 'mount' written in {format_path(where)}: its mount, if any, comes"
                           f" from bestiary entry {shorten(node['use'])}, and one written here"
                           " replaces it whole; set it whole, e.g. mount={use: warhorse, hp: 30}")
                    raise ValueError(msg)
                node[key] = {}  # a section not written yet (options:); validation checks its name
            where = (*where, key)
            if not last:
                node = node[key]  # type: ignore[index]
    except ValueError as exc:
        raise _fail(file, override.text, str(exc)) from None
    return data, created or where, where


def blame(problems: list[Problem], touched: list[tuple[Path, str]]) -> list[Problem]:
    """Problems inside an overridden value say which ``--set`` wrote it."""
    if not touched:
        return problems
    out = []
    for problem in problems:
        for path, text in reversed(touched):
            shown = format_path(path)
            if problem.path == shown or problem.path.startswith((shown + ".", shown + "[")):
                problem = attrs.evolve(problem, message=f"{problem.message} (from --set {text})")
                break
        out.append(problem)
    return out
