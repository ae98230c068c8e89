"""``sim import FILE.json``: other d20 games' monsters become d20 bestiary files that
validate, play when a scenario `use:`s them, and show in `sim bestiary`."""

from __future__ import annotations

import pytest

from tests.cli.helpers import PROBLEM_LINE, answer, run, usage_error
from tests.scenario import srd_files as f

FIGHT = """\
name: Imported foes
rules: d20
sides:
  - name: heroes
    party: true
    members:
      - {use: knight}
      - {use: priest}
  - name: beasts
    members:
      - {use: owlbear}
      - {use: goblin, count: 2}
"""


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_both_shapes_import_validate_play_and_show(here, capsys):
    f.write(here, "db.json", [f.DB_GOBLIN, f.DB_APE])
    f.write(here, "open5e.json", {"count": 2, "next": None, "results": [f.O5E_OWLBEAR, f.O5E_KOBOLD]})
    code, out, err = run(capsys, "import", "db.json")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[:4] == [
        "bestiary/d20/goblin.yaml: goblin (AC 15, 7 HP (2d6), CR 1/4, +4 to hit)",
        "  as d20: defense_threshold 14, attack_threshold 15, level 1, hp 2d6",
        "  weapons: scimitar 1d6+2, shortbow 1d6+2",
        "  not carried: Nimble Escape: special ability"]
    assert max(map(len, lines)) <= 80
    assert lines[-1].startswith("sim import: 2 entries written to bestiary/d20")
    code, out, _ = run(capsys, "import", "open5e.json", "--rules", "d20")
    assert code == 0 and "owlbear (AC 13, 59 HP (7d10+21), CR 3, +7 to hit)" in out
    files = sorted(p.name for p in (here / "bestiary" / "d20").iterdir())
    assert files == ["ape.yaml", "goblin.yaml", "kobold.yaml", "owlbear.yaml"]
    code, out, err = run(capsys, "validate", "--strict", *(f"bestiary/d20/{n}" for n in files))
    assert (code, err) == (0, "")
    (here / "fight.yaml").write_text(FIGHT, encoding="utf-8")
    code, out, err = run(capsys, "validate", "--strict", "fight.yaml")
    assert (code, err) == (0, "")
    code, out, _ = run(capsys, "show", "fight.yaml")
    assert "beak + claws" in out and "attack_threshold: 15" in out  # the import's goblin
    summary = answer(capsys, "batch", "fight.yaml", "-n", "40", "--seed", "1", "--workers", "1",
                     "--out", str(here / "run"))
    assert summary["battles"] == 40
    code, out, _ = run(capsys, "bestiary", "d20", "owlbear")
    assert code == 0 and "Imported by sim import from Open5e" in out


def test_out_names_the_bestiary_folder(here, capsys):
    f.write(here, "m.json", f.O5E_BUGBEAR)
    assert run(capsys, "import", "m.json", "--out", "books")[0] == 0
    assert (here / "books" / "d20" / "bugbear.yaml").is_file()
    assert run(capsys, "import", "m.json", "--out", "mine/d20")[0] == 0
    assert (here / "mine" / "d20" / "bugbear.yaml").is_file()
    code, out, _ = run(capsys, "bestiary", "d20", "bugbear", "--bestiary", "books")
    assert code == 0 and "5d8+5" in out


def test_a_file_there_is_replaced_only_with_force(here, capsys):
    f.write(here, "m.json", [f.O5E_KOBOLD, f.O5E_BUGBEAR])
    assert run(capsys, "import", "m.json")[0] == 0
    (here / "bestiary" / "d20" / "kobold.yaml").write_text("# mine\n", encoding="utf-8")
    code, out, err = run(capsys, "import", "m.json")
    assert (code, out) == (2, "")
    assert err.splitlines() == ["bestiary/d20/kobold.yaml:0:0: (document): already there: --force"
                                " replaces it (nothing was written)", "bestiary/d20/bugbear.yaml:0:0:"
                                " (document): already there: --force replaces it (nothing was"
                                " written)"]
    assert (here / "bestiary" / "d20" / "kobold.yaml").read_text(encoding="utf-8") == "# mine\n"
    assert run(capsys, "import", "m.json", "--force")[0] == 0
    assert "kobold" in (here / "bestiary" / "d20" / "kobold.yaml").read_text(encoding="utf-8")


def test_an_entry_of_that_name_in_another_file(here, capsys):
    (here / "bestiary" / "d20").mkdir(parents=True)
    (here / "bestiary" / "d20" / "mine.yaml").write_text(
        "rules: d20\ncreatures:\n  kobold:\n    hp: 5\n    weapons: [{name: d, damage: 1d4}]\n",
        encoding="utf-8")
    f.write(here, "m.json", f.O5E_KOBOLD)
    code, _, err = run(capsys, "import", "m.json")
    assert code == 2
    assert err.startswith("bestiary/d20/mine.yaml:0:0: creatures.kobold: an entry of this name is"
                          " there already")


def test_a_monster_with_nothing_to_play_is_told(here, capsys):
    f.write(here, "m.json", [f.DB_MAGE, f.DB_GOBLIN])
    code, out, _ = run(capsys, "import", "m.json")
    assert code == 0 and "skipped archmage spirit: no attack" in out
    f.write(here, "only.json", f.DB_MAGE)
    code, out, err = run(capsys, "import", "only.json")
    assert (code, out) == (2, "")
    assert err == "only.json:0:0: (document): no monster this d20 can play in the file (each" \
                  " needs an attack with an attack bonus)\n"


@pytest.mark.parametrize(("text", "start"), [
    ('{"name": "Goblin", "armor_class": 15,', "m.json:1:38: (document): not JSON: "),
    ("\xff\xfe", "m.json:0:0: (document): not UTF-8 text"),
    ("[1]", "m.json:0:0: [0]: must be a monster")])
def test_bad_json_is_one_line(here, capsys, text, start):
    (here / "m.json").write_bytes(text.encode("latin-1") if "\xff" in text else text.encode())
    code, out, err = run(capsys, "import", "m.json")
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1 and err.startswith(start) and PROBLEM_LINE.match(err)
    assert not (here / "bestiary").exists()


def test_a_bad_monster_writes_nothing(here, capsys):
    f.write(here, "m.json", {"results": [f.O5E_KOBOLD, {**f.O5E_OWLBEAR, "armor_class": None}]})
    code, _, err = run(capsys, "import", "m.json")
    assert code == 2 and err.startswith("m.json:0:0: results[1].armor_class: owlbear: no armor class")
    assert not (here / "bestiary").exists()


def test_only_d20(capsys):
    assert "invalid choice: 'd100'" in usage_error(capsys, "import", "m.json", "--rules", "d100")
