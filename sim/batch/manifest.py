"""A run's manifest and the JSON files of a run folder, read as hostile input.

The manifest says what a run asked for (scenario, seed, n, chunk...) and who
it is (a random ``run_id``). It is sealed with the SHA-256 of its own content
(``sha256``, over the canonical JSON of every other key), so a hand edit is
refused instead of resuming into mixed results. Files are read bounded, only
when they are regular files, and problems are reported as
``file:line:col: key: message`` without echoing anything but the offending value.
"""

from __future__ import annotations

import errno
import hashlib
import json
import pathlib
import re
import secrets
from typing import Any

from sim.errors import InputError
from sim.io.infile import NotRegularFileError, open_regular
from sim.io.jsonin import JSONLimitError, parse_json
from sim.yamlsrc import shorten

MAX_INT = 2**63 - 1  # seeds, counts and indices: what an int64 Parquet column holds
MAX_RUN_FILE = 1024 * 1024  # a manifest or summary is a few kB
STATUSES = ("running", "interrupted", "complete")


def new_run_id() -> str:
    """A run's identity: random from the OS, never from the battles' seeded generators."""
    return secrets.token_hex(16)


def read_regular(path: pathlib.Path, limit: int) -> bytes:
    """A regular file's bytes, at most ``limit``; anything else (FIFO, device, folder) is refused
    without blocking. OSError for what the OS refuses; InputError for the rest."""
    try:
        handle = open_regular(path)  # the one non-blocking opener of inputs (sim.io.infile)
    except NotRegularFileError as exc:
        msg = f"{path}:0:0: (document): not a regular file"
        raise InputError(msg) from exc
    with handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        msg = f"{path}:0:0: (document): larger than {limit // 1024} kB: not a file of this program"
        raise InputError(msg)
    return data


def read_json(path: pathlib.Path, what: str, missing: str) -> Any:
    """A JSON file of a run folder; missing or damaged, an InputError at ``file:line:col``."""
    try:
        data = read_regular(path, MAX_RUN_FILE)
    except FileNotFoundError:
        msg = f"{path}:0:0: (document): {missing}"
        raise InputError(msg) from None
    except OSError as exc:
        reason = "not a regular file" if exc.errno == errno.EISDIR else exc.strerror
        msg = f"{path}:0:0: (document): cannot read the {what} ({reason})"
        raise InputError(msg) from None
    except ValueError:  # a NUL or unencodable character in the path
        msg = f"{path}:0:0: (document): cannot read the {what} (a path the system cannot use)"
        raise InputError(msg) from None
    try:
        return parse_json(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        msg = f"{path}:0:0: (document): unreadable {what} (not UTF-8 at byte {exc.start})"
        raise InputError(msg) from None
    except json.JSONDecodeError as exc:
        msg = f"{path}:{exc.lineno}:{exc.colno}: (document): unreadable {what} ({exc.msg})"
        raise InputError(msg) from None
    except JSONLimitError as exc:  # 5,000-digit numbers; nesting 100,000 deep
        msg = f"{path}:0:0: (document): unreadable {what} ({exc.reason})"
        raise InputError(msg) from None


def manifest_text(manifest: dict[str, Any]) -> str:
    """The manifest as written, sealed: its ``sha256`` covers every other key.

    ASCII JSON: paths that the OS gave as undecodable bytes survive as escapes.
    """
    sealed = {**manifest, "sha256": _digest(manifest)}
    return json.dumps(sealed, indent=2) + "\n"


def _digest(manifest: dict[str, Any]) -> str:
    body = {key: value for key, value in manifest.items() if key != "sha256"}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def _is_int(value: object, low: int, high: int = MAX_INT) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _is_str(value: object) -> bool:
    return isinstance(value, str) and len(value) <= 4096


def _precision_ok(value: object) -> bool:
    if value is None:
        return True
    return isinstance(value, float | int) and not isinstance(value, bool) and 0 < value < 0.5


# Every key a resume or a replay reads, and what it must hold (scenario_given, the path as the
# command gave it, is optional: it is used only when it names the file scenario_path does).
_CHECKS: dict[str, tuple[Any, str]] = {
    "schema": (lambda v: v == 1, "must be 1 (a manifest of this program)"),
    "run_id": (lambda v: isinstance(v, str) and re.fullmatch(r"[0-9a-f]{32}", v) is not None,
               "must be 32 hexadecimal digits"),
    "n": (lambda v: _is_int(v, 1), f"must be an integer from 1 to {MAX_INT}"),
    "seed": (lambda v: _is_int(v, 0), f"must be an integer from 0 to {MAX_INT}"),
    "chunk": (lambda v: _is_int(v, 1), f"must be an integer from 1 to {MAX_INT}"),
    "precision": (_precision_ok, "must be null or a number between 0 and 0.5"),
    "logs": (lambda v: isinstance(v, str) and re.fullmatch(r"none|all|sample:[1-9][0-9]{0,17}", v)
             is not None, "must be none, all or sample:N"),
    "scenario_path": (_is_str, "must be a path"),
    "scenario_sha256": (lambda v: isinstance(v, str) and re.fullmatch(r"[0-9a-f]{64}", v) is not None,
                        "must be 64 hexadecimal digits"),
    "resolved_sha256": (_is_str, "must be a string"),
    "bestiary": (lambda v: isinstance(v, list) and len(v) <= 100 and all(_is_str(f) for f in v),
                 "must be a list of folders"),
    "status": (lambda v: v in STATUSES, f"must be one of {', '.join(STATUSES)}"),
    "battles_done": (lambda v: _is_int(v, 0), f"must be an integer from 0 to {MAX_INT}"),
    "sha256": (lambda v: isinstance(v, str), "must be the manifest's SHA-256"),
}


def check_manifest(path: pathlib.Path, manifest: object) -> dict[str, Any]:
    """The manifest if every key holds what it must and its seal matches; else InputError."""
    text_of = _TextOf(path)
    if not isinstance(manifest, dict):
        msg = f"{path}:1:1: (document): must be a JSON object"
        raise InputError(msg)
    for key, (ok, expected) in _CHECKS.items():
        if key not in manifest:
            msg = f"{path}:1:1: {key}: missing"
            raise InputError(msg)
        if not ok(manifest[key]):
            line, col = text_of.mark(key)
            msg = f"{path}:{line}:{col}: {key}: {expected} (got {shorten(manifest[key])})"
            raise InputError(msg)
    elapsed = manifest.get("elapsed_s", 0.0)
    if not (isinstance(elapsed, float | int) and not isinstance(elapsed, bool) and 0 <= elapsed < 1e12):
        line, col = text_of.mark("elapsed_s")
        msg = f"{path}:{line}:{col}: elapsed_s: must be a number of seconds (got {shorten(elapsed)})"
        raise InputError(msg)
    if manifest["chunk"] > manifest["n"]:
        line, col = text_of.mark("chunk")
        msg = f"{path}:{line}:{col}: chunk: must be at most n ({manifest['n']})"
        raise InputError(msg)
    if manifest["sha256"] != _digest(manifest):
        msg = (f"{path}:0:0: (document): edited or damaged since sim wrote it (its SHA-256 does"
               " not match); a run cannot be resumed or replayed from a changed manifest")
        raise InputError(msg)
    return manifest


class _TextOf:
    """Where a top-level key sits in a JSON file (the file is re-read only for a message)."""

    def __init__(self, path: pathlib.Path) -> None:
        self.path = path

    def mark(self, key: str) -> tuple[int, int]:
        try:
            text = read_regular(self.path, MAX_RUN_FILE).decode("utf-8")
        except (OSError, InputError, UnicodeDecodeError):
            return 0, 0
        found = re.search(rf'"{re.escape(key)}"\s*:\s*', text)
        if found is None:
            return 1, 1
        before = text[: found.end()]
        line = before.count("\n") + 1
        return line, found.end() - (before.rfind("\n") + 1) + 1


def file_sha256(path: pathlib.Path, limit: int, what: str) -> str:
    """The SHA-256 of a regular file of at most ``limit`` bytes, read without parsing it.

    A run or a log names its scenario by path: checking the hash before parsing
    means a path that now points at an unrelated file is refused without a word
    of that file reaching the terminal.
    """
    try:
        data = read_regular(path, limit)
    except InputError:
        msg = f"{path}:0:0: (document): {what} is not a regular file of at most {limit // 1024} kB"
        raise InputError(msg) from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL or unencodable character
        reason = getattr(exc, "strerror", None) or "a path the system cannot use"
        msg = f"{path}:0:0: (document): cannot read {what} ({reason})"
        raise InputError(msg) from None
    return hashlib.sha256(data).hexdigest()
