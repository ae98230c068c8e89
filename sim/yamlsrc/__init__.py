"""Safe YAML loading into plain data that remembers the line:col of every node.

``load`` checks a file (size, encoding, characters) and hands its text to the
hardened composer (``compose``); ``source`` holds what they return (``Source``,
``Mark``, ``Path``) and the formatting every message shares.

May import: ``sim.io``, ``sim.errors`` and ``sim.terminal``; every layer that reads
YAML imports it.
"""

from sim.yamlsrc.load import MAX_BYTES, load_marked, load_yaml, load_yaml_text
from sim.yamlsrc.source import Mark, Path, Source, display_name, format_path, shorten

__all__ = [
    "MAX_BYTES", "Mark", "Path", "Source", "display_name", "format_path", "load_marked", "load_yaml",
    "load_yaml_text", "shorten",
]
