"""``sim bestiary [RULES] TEXT``: entries found by substring and close spelling (sim.scenario.lookup),
and the shipped bestiary searched last from any folder."""

from __future__ import annotations

import pathlib

import pytest

from sim.scenario import bestiary, load_scenario
from sim.scenario.lookup import closest, search
from tests.scenario.test_show import run

REPO = pathlib.Path(__file__).resolve().parent.parent
NAMES = ("orc brute", "orc archer", "rogue", "goblin", "goblin archer", "giant spider", "wolf")
LIBRARY = "rules: d20\ncreatures:\n" + "".join(f"  {name}: {{hp: 5}}\n" for name in NAMES)


@pytest.fixture
def library(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, no_shipped_bestiary: None
            ) -> pathlib.Path:
    """An empty working folder and a bestiary of NAMES elsewhere (given with --bestiary)."""
    (tmp_path / "lib" / "d20").mkdir(parents=True)
    (tmp_path / "lib" / "d20" / "x.yaml").write_text(LIBRARY, encoding="utf-8")
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    monkeypatch.delenv("SIM_BESTIARY", raising=False)
    return tmp_path / "lib"


def found(capsys: pytest.CaptureFixture[str], library: pathlib.Path, text: str) -> list[str]:
    """The entry names ``sim bestiary d20 TEXT`` lists (exit 0)."""
    code, out, err = run(capsys, "bestiary", "d20", text, "--bestiary", str(library))
    assert (code, err) == (0, ""), err
    assert out.splitlines()[0] == f"d20 ({library / 'd20'}):"
    return [line.strip().split(":")[0] for line in out.splitlines()[1:]]


class TestLookup:
    """The matching rules themselves."""

    @pytest.mark.parametrize(("text", "names"), [
        ("orc", ["orc brute", "orc archer"]),  # a word of the name
        ("ORC Br", ["orc brute"]),  # any case, any part
        ("wolves", ["wolf"]),  # a plural for the singular name
        ("gobln", ["goblin", "goblin archer"]),  # a letter dropped: closest first
        ("spidr", ["giant spider"]),  # close to one word of the name
        ("ogre", []),  # rogue only shares letters with it (difflib ratio 0.67)
        ("dragon", []),
    ])
    def test_search(self, text: str, names: list[str]) -> None:
        assert search(text, NAMES) == names

    def test_closest(self) -> None:
        """One hint for a misspelt name, none where nothing is close."""
        assert closest("gobln", NAMES) == "goblin"
        assert closest("giant spidr", NAMES) == "giant spider"
        assert closest("ogre", NAMES) is None
        assert closest("ogre", ("rogue", "ogre chief")) == "ogre chief"


class TestSearchCommand:
    """``sim bestiary [RULES] TEXT`` on the command line."""

    def test_substring(self, library: pathlib.Path, capsys) -> None:
        """`orc` lists both orcs, one line each, under the folder searched."""
        assert found(capsys, library, "orc") == ["orc archer", "orc brute"]

    def test_close_spelling(self, library: pathlib.Path, capsys) -> None:
        assert found(capsys, library, "gobln") == ["goblin", "goblin archer"]
        assert found(capsys, library, "wolves") == ["wolf"]

    def test_exact_name_shows_the_entry(self, library: pathlib.Path, capsys) -> None:
        """A whole name shows that entry in full, as before."""
        code, out, _ = run(capsys, "bestiary", "d20", "goblin", "--bestiary", str(library))
        assert code == 0 and out.startswith("# d20 bestiary entry, from ")

    def test_exact_name_then_the_others_it_finds(self, library: pathlib.Path, capsys) -> None:
        """`goblin` names an entry and is part of another: the entry in full, then the other
        names, so a search for a word never hides the longer names (`orc` and `orc brute`)."""
        code, out, _ = run(capsys, "bestiary", "d20", "goblin", "--bestiary", str(library))
        assert code == 0 and out.splitlines()[-1] == "# also matching 'goblin': goblin archer"
        code, out, _ = run(capsys, "bestiary", "d20", "orc archer", "--bestiary", str(library))
        assert "also matching" not in out

    def test_nothing_close_is_not_a_guess(self, library: pathlib.Path, capsys) -> None:
        """`ogre` with a rogue and no ogre: exit 2 and the folders searched, rogue never proposed."""
        code, out, err = run(capsys, "bestiary", "d20", "ogre", "--bestiary", str(library))
        assert (code, out) == (2, "")
        assert err.startswith(f"sim bestiary: no bestiary entry matches 'ogre' by name or spelling;"
                              f" searched: {library / 'd20'};")
        assert "rogue" not in err

    def test_any_rules(self, library: pathlib.Path, capsys) -> None:
        """TEXT alone searches every rule system; only those with a match are listed."""
        code, out, _ = run(capsys, "bestiary", "orc", "--bestiary", str(library))
        assert code == 0 and [line for line in out.splitlines() if not line.startswith(" ")] == [
            f"d20 ({library / 'd20'}):"]


class TestShipped:
    """The bestiary shipped with sim (the repository's bestiary/ here: an editable install)."""

    @pytest.fixture
    def elsewhere(self, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
        monkeypatch.chdir(tmp_path)
        monkeypatch.delenv("SIM_BESTIARY", raising=False)
        return tmp_path

    def test_found_as_package_data(self) -> None:
        shipped = bestiary.shipped_bestiary()
        assert shipped is not None and shipped.resolve() == (REPO / "bestiary").resolve()

    def test_listed_from_any_folder(self, elsewhere: pathlib.Path, capsys) -> None:
        """`sim bestiary d20` from a folder with no bestiary lists the shipped one, saying so."""
        code, out, _ = run(capsys, "bestiary", "d20")
        assert code == 0 and out.splitlines()[0] == f"d20 ({REPO / 'bestiary' / 'd20'} (shipped with sim)):"
        assert "  wolf: " in "\n".join(line[:8] for line in out.splitlines())

    def test_searched_last(self, elsewhere: pathlib.Path, capsys) -> None:
        """A bestiary/ beside the scenario wins a name clash; other names come from the shipped one."""
        (elsewhere / "bestiary" / "d20").mkdir(parents=True)
        (elsewhere / "bestiary" / "d20" / "mine.yaml").write_text(
            "rules: d20\ncreatures:\n  wolf: {hp: 99, level: 1}\n", encoding="utf-8")
        (elsewhere / "s.yaml").write_text(
            "name: Wolves\nrules: d20\nsides:\n  - name: heroes\n    party: true\n    members:\n"
            "      - {use: ranger}\n  - name: beasts\n    members:\n      - {use: wolf}\n",
            encoding="utf-8")
        scenario = load_scenario(elsewhere / "s.yaml")
        ranger, wolf = (side.members[0] for side in scenario.sides)
        assert (ranger.level, str(wolf.hp.text)) == (3, "99")
        code, out, _ = run(capsys, "bestiary", "d20")
        assert code == 0 and out.splitlines()[0] == (
            f"d20 (bestiary/d20, {REPO / 'bestiary' / 'd20'} (shipped with sim)):")
