"""What every sim command shares: say/warn, the one terminal-safe printer."""

from __future__ import annotations

import io

from sim.cli.common import say, warn


class TestSay:
    def test_controls_are_shown_as_escapes(self):
        """A message quoting user input never writes a terminal control (ESC, CSI, bidi)."""
        out = io.StringIO()
        say("name: \x1b[31mred\u202e\x9b", out)
        assert out.getvalue() == "name: \\x1b[31mred\\u202e\\x9b\n"

    def test_unencodable_character_is_escaped_not_raised(self):
        """On a stream that cannot encode a character (an ASCII terminal), it is written as an escape."""
        raw = io.BytesIO()
        out = io.TextIOWrapper(raw, encoding="ascii")
        say("caf\u00e9 ok", out)
        out.flush()
        assert raw.getvalue() == b"caf\\xe9 ok\n"

    def test_stdout_by_default_warn_on_stderr(self, capsys):
        """say writes to stdout unless given a stream; warn writes to stderr."""
        say("to out")
        warn("to err")
        assert capsys.readouterr() == ("to out\n", "to err\n")
