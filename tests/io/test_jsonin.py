"""JSON from outside: a number too long or nesting too deep is named, not a crash."""

from __future__ import annotations

import json

import pytest

from sim.io.jsonin import JSONLimitError, parse_json


class TestParseJson:
    def test_well_formed_json_parses(self):
        """Ordinary JSON comes back as json.loads gives it."""
        assert parse_json('{"a": [1, 2.5, null, "x"]}') == {"a": [1, 2.5, None, "x"]}

    def test_number_too_long(self):
        """A 5,000-digit integer (past int()'s limit) is refused as a number too long."""
        with pytest.raises(JSONLimitError) as caught:
            parse_json('{"seed": ' + "1" * 5000 + "}")
        assert caught.value.reason == "a number too long"

    def test_nested_too_deeply(self):
        """Nesting 100,000 deep (past the recursion limit) is refused as nested too deeply."""
        with pytest.raises(JSONLimitError) as caught:
            parse_json("[" * 100_000 + "]" * 100_000)
        assert caught.value.reason == "nested too deeply"

    def test_syntax_error_stays_a_decode_error(self):
        """Broken JSON keeps json's own error, with its line and column."""
        with pytest.raises(json.JSONDecodeError) as caught:
            parse_json('{"a": 1,\n "b": }')
        assert (caught.value.lineno, caught.value.colno) == (2, 7)
