"""The parser: every argument has help, and usage errors exit 2 with one message."""

from __future__ import annotations

import pytest
import yaml

from sim.cli import main
from tests.cli.helpers import AMBUSH, usage_error


class TestHelp:
    """Every argument of every subcommand says what it is for."""

    def test_every_action_has_help(self):
        """Walking the parser: no argument (nor subcommand) without help text, none hidden."""
        import argparse

        from sim.cli.args import build_parser

        def walk(parser: argparse.ArgumentParser, where: str):
            for action in parser._actions:
                yield where, action
                if isinstance(action, argparse._SubParsersAction):
                    for name, sub in action.choices.items():
                        yield from walk(sub, f"{where} {name}")

        actions = list(walk(build_parser(), "sim"))
        missing = [f"{where}: {action.dest}" for where, action in actions
                   if not action.help or action.help == argparse.SUPPRESS]
        assert len(actions) > 40 and missing == []

    def test_replay_help_states_exit_codes(self, capsys):
        """sim replay --help spells out 0 identical, 1 differs, 2 bad input."""
        with pytest.raises(SystemExit):
            main(["replay", "--help"])
        out = " ".join(capsys.readouterr().out.split())
        assert "exit codes: 0 ok (with --verify: the log is identical" in out
        assert "1 with --verify: the log differs" in out and "2 bad input" in out


class TestUsageErrors:
    """Bad arguments exit 2 with a usage message and no traceback."""

    @pytest.mark.parametrize("seed", ["-1", "abc", "1.5", str(2**63)])
    def test_bad_seed(self, capsys, seed):
        """A seed that is not a whole number in range is refused."""
        err = usage_error(capsys, "run", str(AMBUSH), "--seed", seed)
        assert "--seed" in err

    @pytest.mark.parametrize("command", ["batch", "compare", "tune"])
    @pytest.mark.parametrize("seed", ["-5", str(2**63)])
    def test_seed_out_of_range_everywhere(self, capsys, command, seed):
        """Every --seed is 0..2**63-1: a negative one (Random(-5) is Random(5)) is refused."""
        err = usage_error(capsys, command, str(AMBUSH), "--seed", seed)
        assert f"must be between 0 and {2**63 - 1} (got {seed})" in err

    @pytest.mark.parametrize("command", ["batch", "compare", "tune"])
    @pytest.mark.parametrize("n", ["0", "-1", str(2**63)])
    def test_n_out_of_range_names_its_own_bounds(self, capsys, command, n):
        """-n is 1..2**63-1, and says so: -1 was told 'between 0 and ...', though 0 is refused."""
        err = usage_error(capsys, command, str(AMBUSH), "-n", n)
        assert f"argument -n: must be between 1 and {2**63 - 1} (got {n})" in err

    @pytest.mark.parametrize(("command", "option", "values"), [
        ("batch", "-n", ("5", "10")), ("run", "--seed", ("1", "2")),
        ("tune", "--vary", ("a=1..2", "a=1..3")), ("compare", "--precision", ("0.1", "0.2"))])
    def test_an_option_given_twice_is_refused(self, capsys, command, option, values):
        """argparse would keep the last value and drop the first without a word."""
        args = [arg for value in values for arg in (option, value)]
        err = usage_error(capsys, command, str(AMBUSH), *args)
        assert f"argument {option}: given twice; give it once" in err

    def test_repeatable_options_still_repeat(self, capsys):
        """--set and --bestiary add up: both edits show, both folders are searched."""
        bestiary = AMBUSH.parent.parent / "bestiary"
        code = main(["show", str(AMBUSH), "--set", "sides[goblins].members[goblin].count=2",
                     "--set", "sides[goblins].members[goblin].hp=3",
                     "--bestiary", str(bestiary / "d20"), "--bestiary", str(bestiary / "d100")])
        goblins = yaml.safe_load(capsys.readouterr().out)["sides"][1]["members"]
        assert code == 0 and [(g["name"], g["hp"]) for g in goblins] == [("goblin 1", 3), ("goblin 2", 3)]

    @pytest.mark.parametrize("command", ["batch", "compare", "tune"])
    def test_workers_have_a_ceiling(self, capsys, command):
        """--workers past 1024 is refused (2**31 - 1 crashed the pool: a C int's limit)."""
        err = usage_error(capsys, command, str(AMBUSH), "--workers", str(2**31 - 1))
        assert f"must be at most 1024 (got {2**31 - 1})" in err

    @pytest.mark.parametrize("command", [
        ["compare", str(AMBUSH), "--vary", "sides[goblins].members[goblin].count=4,5"],
        ["tune", str(AMBUSH), "--vary", "sides[goblins].members[goblin].count=4..5", "--target",
         "party.tpk<=0.5"]], ids=["compare", "tune"])
    def test_empty_report_folder_is_refused(self, capsys, command, tmp_path, monkeypatch):
        """--report '' was the path '.': the page went into the working folder without a word."""
        monkeypatch.chdir(tmp_path)  # where the page went
        err = usage_error(capsys, *command, "-n", "5", "--report", "")
        assert "argument --report: needs a folder (got '')" in err and not any(tmp_path.iterdir())

    @pytest.mark.parametrize("option", ["--see", "--prec", "--bes"])
    def test_abbreviated_options_are_refused(self, capsys, option):
        """Options are spelled out: an abbreviation could slip past --resume's refusal of run
        settings (which matches full spellings) and be dropped without a word."""
        err = usage_error(capsys, "batch", str(AMBUSH), option, "5")
        assert f"unrecognized arguments: {option}" in err

    def test_unknown_subcommand(self, capsys):
        """An unknown subcommand is refused, naming the ones that exist."""
        err = usage_error(capsys, "frobnicate")
        assert "frobnicate" in err
        assert "run" in err

    def test_no_subcommand(self, capsys):
        """``sim`` alone is a usage error."""
        usage_error(capsys)

    def test_validate_needs_a_file(self, capsys):
        """``sim validate`` with no file is a usage error."""
        usage_error(capsys, "validate")
