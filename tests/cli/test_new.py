"""``sim new``: a starter scenario or day from bestiary names that validates, plays, and says
in comments what each key means; unknown names refused with a did-you-mean."""

from __future__ import annotations

import pathlib

import pytest
import yaml

from sim.day.file import Day, load_input
from sim.day.play import run_any
from sim.scenario import IMPLEMENTED_SYSTEMS
from sim.scenario.bestiary import load_bestiary, shipped_bestiary
from sim.scenario.starter import scalar
from tests.cli.helpers import PROBLEM_LINE, run

HEADLINE = ("new", "--rules", "d20", "--party", "fighter,priest,rogue,ranger", "--vs", "ogre, wolf x4")


@pytest.fixture
def elsewhere(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    """A working folder with no bestiary of its own: only the shipped one is found."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def written(capsys: pytest.CaptureFixture[str], folder: pathlib.Path, *argv: str) -> pathlib.Path:
    """``sim ARGV`` (exit 0, nothing on stderr), its output saved as folder/new.yaml."""
    code, out, err = run(capsys, *argv)
    assert (code, err) == (0, ""), err
    path = folder / "new.yaml"
    path.write_text(out, encoding="utf-8")
    return path


def shipped_names(rules: str) -> list[str]:
    shipped = shipped_bestiary()
    assert shipped is not None
    problems: list = []
    names = sorted(load_bestiary([shipped], rules, problems))
    assert problems == []
    return names


class TestScenario:
    """The issue's example, and every shipped entry of every system."""

    def test_headline_validates_and_runs(self, elsewhere: pathlib.Path, capsys) -> None:
        path = written(capsys, elsewhere, *HEADLINE)
        assert run(capsys, "validate", str(path))[0] == 0
        code, out, _ = run(capsys, "run", str(path), "--seed", "3")
        assert code == 0 and out.strip()
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        party, foes = data["sides"]
        assert party["party"] is True
        assert party["members"] == [{"use": name} for name in ("fighter", "priest", "rogue", "ranger")]
        assert foes["members"] == [{"use": "ogre"}, {"use": "wolf", "count": 4}]

    def test_each_key_is_commented(self, elsewhere: pathlib.Path, capsys) -> None:
        """Every key written carries a comment on its line, or is explained by one
        (use:, name: of a member) in the comment lines above the members."""
        text = written(capsys, elsewhere, *HEADLINE).read_text(encoding="utf-8")
        lines = text.splitlines()
        for key in ("name", "rules", "sides", "party", "members"):
            line = next(line for line in lines if line.strip().lstrip("- ").startswith(f"{key}:"))
            assert " # " in line, f"{key}: no comment on {line!r}"
        comments = "\n".join(line for line in lines if line.lstrip().startswith("#"))
        for key in ("use:", "name:", "description:", "distance:", "surprise:", "max_rounds:"):
            assert f"# {key}" in comments, key
        assert '- {use: wolf, count: 4}' in text and '# count: named "wolf 1" .. "wolf 4"' in text

    @pytest.mark.parametrize("rules", IMPLEMENTED_SYSTEMS)
    def test_every_shipped_entry(self, rules: str, elsewhere: pathlib.Path, capsys) -> None:
        """Each shipped entry of the system, four by four against the next four (two of each),
        gives a starter that loads and plays a battle."""
        names = shipped_names(rules)
        for start in range(0, len(names), 4):
            party = names[start:start + 4]
            foes = (names[start + 4:start + 8] or names[:4])
            path = written(capsys, elsewhere, "new", "--rules", rules, "--party", ",".join(party),
                           "--vs", ", ".join(f"{name} x2" for name in foes))
            scenario = load_input(path)
            assert not isinstance(scenario, Day)
            assert run_any(scenario, 1)[0] is not None


class TestDay:
    """``--day``: each --vs a fight, a quick rest between two."""

    @pytest.mark.parametrize("rules", IMPLEMENTED_SYSTEMS)
    def test_day_validates_and_plays(self, rules: str, elsewhere: pathlib.Path, capsys) -> None:
        names = shipped_names(rules)
        path = written(capsys, elsewhere, "new", "--day", "--rules", rules, "--party", ",".join(names[:3]),
                       "--vs", names[3], "--vs", f"{names[4]} x2")
        day = load_input(path)
        assert isinstance(day, Day) and [type(step).__name__ for step in day.steps] == [
            "Encounter", "Rest", "Encounter"]
        assert run_any(day, 1)[0] is not None

    def test_one_fight_without_day_flag(self, elsewhere: pathlib.Path, capsys) -> None:
        """Two --vs without --day: refused (a scenario is one fight), not one of them dropped."""
        code, out, err = run(capsys, *HEADLINE, "--vs", "goblin")
        assert (code, out) == (2, "") and "--vs: given twice: a scenario is one fight" in err


class TestNames:
    """What --party and --vs accept."""

    def test_unknown_names_did_you_mean(self, elsewhere: pathlib.Path, capsys) -> None:
        """Exit 2, one problem line per unknown name, each with its closest entry."""
        code, out, err = run(capsys, "new", "--rules", "d20", "--party", "fightr,priest",
                             "--vs", "ogr, wolf x4, dragon")
        assert (code, out) == (2, "")
        lines = err.splitlines()
        assert len(lines) == 3 and all(PROBLEM_LINE.match(line) for line in lines)
        assert lines[0].startswith("fightr,priest:0:0: --party: no d20 bestiary entry 'fightr';"
                                   " did you mean 'fighter'?; searched: ")
        assert lines[1].startswith("ogr, wolf x4, dragon:0:0: --vs: no d20 bestiary entry 'ogr';"
                                   " did you mean 'ogre'?; searched: ")
        assert "did you mean" not in lines[2] and "'dragon'" in lines[2]

    def test_counts(self, elsewhere: pathlib.Path, capsys) -> None:
        """NAME xN, N NAME, a name twice (added up) and any case."""
        path = written(capsys, elsewhere, "new", "--rules", "d20", "--party", "Fighter, fighter",
                       "--vs", "wolf x 2, 3 goblin, goblin, wolf")
        party, foes = yaml.safe_load(path.read_text(encoding="utf-8"))["sides"]
        assert party["members"] == [{"use": "fighter", "count": 2}]
        assert foes["members"] == [{"use": "wolf", "count": 3}, {"use": "goblin", "count": 4}]

    @pytest.mark.parametrize(("vs", "message"), [
        ("wolf x0", "'wolf x0': the count must be between 1 and 100"),
        ("wolf x101", "'wolf x101': the count must be between 1 and 100"),
        ("ogre,,wolf", "a name is missing"),
    ])
    def test_bad_counts(self, vs: str, message: str, elsewhere: pathlib.Path, capsys) -> None:
        code, out, err = run(capsys, "new", "--rules", "d20", "--party", "fighter", "--vs", vs)
        assert (code, out) == (2, "") and err.startswith(f"{vs}:0:0: --vs: {message}")

    def test_own_bestiary(self, tmp_path: pathlib.Path, elsewhere: pathlib.Path, capsys) -> None:
        """Entries from --bestiary, named in the starter's first comments, and any name quoted
        where YAML would read it otherwise."""
        lib = tmp_path / "lib" / "d20"
        lib.mkdir(parents=True)
        (lib / "x.yaml").write_text('rules: d20\ncreatures:\n  "yes": {hp: 5}\n  "imp: red": {hp: 4}\n',
                                    encoding="utf-8")
        path = written(capsys, elsewhere, "new", "--rules", "d20", "--party", "knight",
                       "--vs", "yes x2, imp: red", "--bestiary", str(lib))
        text = path.read_text(encoding="utf-8")
        assert f"# Written with --bestiary {lib}: give it to every command" in text
        foes = yaml.safe_load(text)["sides"][1]["members"]
        assert foes == [{"use": "yes", "count": 2}, {"use": "imp: red"}]
        assert run(capsys, "validate", str(path), "--bestiary", str(lib))[0] == 0


@pytest.mark.parametrize(("name", "shown"), [
    ("wolf", "wolf"), ("man-at-arms", "man-at-arms"), ("giant spider", "giant spider"),
    ("yes", '"yes"'), ("null", '"null"'), ("a, b", '"a, b"'), ("#x", '"#x"'), ("12", '"12"'),
])
def test_scalar(name: str, shown: str) -> None:
    """Plain where it reads back as itself inside {use: ...}, else double-quoted."""
    assert scalar(name) == shown
    assert yaml.safe_load(f"{{use: {scalar(name)}}}") == {"use": name}
