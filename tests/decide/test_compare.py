"""sim compare: variants on common seeds, paired differences, --precision, --vary, errors."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import stat

import pytest

from sim import cli
from sim.decide.paired import HEADLINE
from sim.report import decision
from tests.cli.helpers import answer
from tests.report.test_decision import printed

ROOT = pathlib.Path(__file__).parent.parent.parent
AMBUSH = ROOT / "scenarios" / "road_ambush.yaml"
DUEL = pathlib.Path(__file__).parent.parent / "data" / "duel" / "duel.yaml"
WARREN = ROOT / "scenarios" / "days" / "goblin_warren.yaml"


def compare(capsys, *args: str) -> dict:
    return answer(capsys, "compare", *args, "--workers", "1")


class TestCommonRandomNumbers:
    """Identical scenarios play identical battles."""

    def test_identical_copy_differs_by_exactly_zero(self, tmp_path, capsys):
        """A scenario against an identical copy: every difference is 0 with a zero-width interval."""
        copy = tmp_path / "copy.yaml"
        shutil.copy(AMBUSH, copy)
        bestiary = ROOT / "bestiary"
        result = compare(capsys, str(AMBUSH), str(copy), "-n", "300", "--bestiary", str(bestiary))
        assert result["variants"] == ["road_ambush", "copy"]
        assert result["battles"] == 300
        for name, metric in result["metrics"].items():
            (diff,) = metric["diffs"]
            assert (diff["d"], diff["lo"], diff["hi"]) == (0.0, 0.0, 0.0), name
            assert metric["values"][0] == metric["values"][1]

    def test_contract_shape(self, capsys):
        """--json: variants, battles, and per metric values per variant and diffs to the first."""
        result = compare(capsys, str(AMBUSH), "--vary", "sides[goblins].members[goblin].count=4,6",
                         "-n", "200")
        assert result["variants"] == ["sides[goblins].members[goblin].count=4",
                                      "sides[goblins].members[goblin].count=6"]
        for name in (*HEADLINE, "rounds.mean", "members[Aria].death", "members[Aria].down"):
            metric = result["metrics"][name]
            assert len(metric["values"]) == 2 and len(metric["diffs"]) == 1
            assert set(metric["diffs"][0]) >= {"d", "lo", "hi"}
        win = result["metrics"]["party.win"]
        assert set(win["values"][0]) == {"p", "lo", "hi"}
        assert win["diffs"][0]["d"] == win["values"][1]["p"] - win["values"][0]["p"] or abs(
            win["diffs"][0]["d"] - (win["values"][1]["p"] - win["values"][0]["p"])) < 1e-5
        # two more goblins: clearly deadlier
        assert result["metrics"]["party.any_death"]["diffs"][0]["lo"] > 0

    def test_paired_narrower_than_independent(self, capsys):
        """A small change (one hero's HP) keeps battles aligned: the paired interval is narrower."""
        result = compare(capsys, str(AMBUSH), "--vary", "sides[heroes].members[Aria].hp=20,24",
                         "-n", "400")
        diff = result["metrics"]["party.win"]["diffs"][0]
        assert (diff["hi"] - diff["lo"]) / 2 < diff["independent_halfwidth"]

    def test_same_results_for_any_worker_count(self, capsys):
        """Two worker processes give the same result as one."""
        args = [str(AMBUSH), "--vary", "sides[goblins].members[goblin].count=5,6", "-n", "120",
                "--chunk", "50"]
        one = compare(capsys, *args)
        assert cli.main(["compare", *args, "--json", "--workers", "2"]) == 0
        two = json.loads(capsys.readouterr().out)
        assert one["metrics"] == two["metrics"]


class TestStopping:
    """--precision stops once every headline difference is within +-P."""

    def test_precision_stops_early(self, capsys):
        """A loose precision stops after the first step, below the cap."""
        result = compare(capsys, str(AMBUSH), "--vary", "sides[heroes].members[Aria].hp=20,22",
                         "-n", "5000", "--precision", "0.2")
        assert result["stopped_by"] == "precision" and result["battles"] < 5000
        for name in HEADLINE:
            diff = result["metrics"][name]["diffs"][0]
            assert (diff["hi"] - diff["lo"]) / 2 <= 0.2


class TestErrors:
    """Bad compare input is exit 2 with one line."""

    def test_one_variant(self, capsys):
        """One scenario without --vary is not a comparison."""
        assert cli.main(["compare", str(AMBUSH), "--workers", "1"]) == 2
        assert "2 to 20 variants" in capsys.readouterr().err

    @pytest.mark.parametrize("vary", ["max_rounds=" + ",".join(["5"] * 3000),
                                      "max_rounds=" + ",".join(map(str, range(1, 22)))])
    def test_too_many_variants_are_refused_before_loading(self, capsys, monkeypatch, vary):
        """A --vary list past 20 values is refused before any variant is loaded (3,000 values
        were each loaded first: 12 s before the same refusal)."""
        def never(*args, **kwargs):
            raise AssertionError("no variant should be loaded")

        monkeypatch.setattr("sim.cli.decide.load_input", never)
        assert cli.main(["compare", str(AMBUSH), "--vary", vary, "--workers", "1"]) == 2
        assert capsys.readouterr().err.startswith("sim compare: give 2 to 20 variants (got ")

    def test_empty_vary_value_is_refused(self, capsys):
        """An empty value in a --vary list (``1,,2``, ``1,2,``) is refused, not dropped."""
        for values in ("1,,2", "1,2,"):
            assert cli.main(["compare", str(AMBUSH), "--vary", f"max_rounds={values}",
                             "--workers", "1"]) == 2
            assert capsys.readouterr().err.startswith("sim compare: --vary: must be PATH=V1,V2")

    def test_vary_values_may_hold_commas(self, capsys):
        """A YAML value holding commas (a flow list or mapping, a quoted text) is one value:
        `items=[{heal: 2d4, count: 2}],[{heal: 4d4, count: 2}]` was cut at every comma into
        broken YAML."""
        vary = "sides[heroes].members[Aria].items=[{heal: 2d4, count: 2}],[{heal: 4d4, count: 2}]"
        assert cli.main(["compare", str(AMBUSH), "--vary", vary, "-n", "5", "--workers", "1",
                         "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["variants"] == [
            "sides[heroes].members[Aria].items=[{heal: 2d4, count: 2}]",
            "sides[heroes].members[Aria].items=[{heal: 4d4, count: 2}]"]

    def test_vary_value_may_hold_an_equals_sign(self, capsys):
        """PATH ends at the first '=' outside brackets, as in --set: the last one cut a
        weapon named 'x=1' into a broken path and value."""
        vary = "sides[heroes].members[Aria].weapons=[{name: x=1, damage: 1d4}],[{name: y, damage: 1d6}]"
        assert cli.main(["compare", str(AMBUSH), "--vary", vary, "-n", "5", "--workers", "1",
                         "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["variants"][0].endswith("[{name: x=1, damage: 1d4}]")

    def test_bad_vary_path(self, capsys):
        """A --vary path that does not exist names the problem."""
        assert cli.main(["compare", str(AMBUSH), "--vary", "sides[orcs].hp=1,2", "--workers", "1"]) == 2
        assert "no entry named 'orcs'" in capsys.readouterr().err

    @pytest.mark.parametrize(("command", "vary", "line"), [
        (["compare"], "sides[orcs].hp=1,2",
         "0:0: --vary sides[orcs].hp=1,2: no entry named 'orcs' in sides; the names there: heroes,"
         " goblins"),
        (["compare"], "sides[heroes].members[Aria].hp=-5,24",
         "16:9: sides[0].members[1].hp: must never be below 1 (got -5, min -5) (from --vary"
         " sides[heroes].members[Aria].hp=-5)"),
        (["tune", "--target", "party.tpk<=0.5"], "sides[heroes].members[Aria].hp=-5..-4",
         "16:9: sides[0].members[1].hp: must never be below 1 (got -5, min -5) (from --vary"
         " sides[heroes].members[Aria].hp=-5)")], ids=["compare path", "compare value", "tune"])
    def test_a_bad_vary_value_names_the_vary(self, capsys, command, vary, line):
        """A --vary value is applied as one more --set, and its problems said '--set PATH=V'
        (or 'from --set'), naming an option nobody gave; a problem every value gives (a
        misspelt name) is told once, with the --vary as written."""
        code = cli.main([command[0], str(AMBUSH), *command[1:], "--vary", vary, "--workers", "1"])
        first = capsys.readouterr().err.splitlines()[0]
        assert code == 2 and first.endswith(f"road_ambush.yaml:{line}")

    def test_vary_range_is_compare_s(self, capsys):
        """A bad LO..HI is told as compare's, and a value holding '..' (a path) is a value."""
        assert cli.main(["compare", str(AMBUSH), "--vary", "sides[goblins].members[goblin].count=5..1",
                         "--workers", "1"]) == 2
        assert capsys.readouterr().err.startswith("sim compare: --vary: LO..HI must hold")
        vary = "steps[4].encounter=../road_ambush.yaml,../hobgoblin_warband.yaml"
        assert cli.main(["compare", str(WARREN), "--vary", vary,
                         "-n", "5", "--workers", "1", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["variants"] == [
            "steps[4].encounter=../road_ambush.yaml", "steps[4].encounter=../hobgoblin_warband.yaml"]

    @pytest.mark.parametrize(("vary", "told"), [
        ("sides[goblins].members[goblin].count=3,4,3", "count=3 fights the same battles as"
                                                       " sides[goblins].members[goblin].count=3"),
        ("name=A,B", "name=B fights the same battles as name=A"),
        ("sides[heroes].members[Aria].description=a,b", "description=b fights the same battles as")])
    def test_variants_fighting_the_same_battles_are_refused(self, capsys, vary, told):
        """--vary values whose variants fight the same battles compared nothing (a table of
        zero differences): a value given twice, a name, a description."""
        assert cli.main(["compare", str(AMBUSH), "--vary", vary, "--workers", "1"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("sim compare: --vary: ") and told in err and len(err.splitlines()) == 1

    def test_report_page(self, tmp_path, capsys):
        """--report writes an HTML page with the names escaped and a plot."""
        assert cli.main(["compare", str(AMBUSH), "--vary", "sides[goblins].members[goblin].count=4,5",
                         "-n", "60", "--workers", "1", "--no-progress", "--report", str(tmp_path)]) == 0
        page = (tmp_path / "compare.html").read_text()
        assert "<svg" in page and "Content-Security-Policy" in page
        assert "count=5" in page


    @pytest.mark.parametrize("command", [
        ["compare", str(AMBUSH), "--vary", "sides[goblins].members[goblin].count=4,5"],
        ["tune", str(AMBUSH), "--vary", "sides[goblins].members[goblin].count=4..5", "--target",
         "party.tpk<=0.5"],
    ], ids=["compare", "tune"])
    def test_report_that_cannot_be_written_is_refused_first(self, tmp_path, capsys, monkeypatch,
                                                            command):
        """--report naming a file (not a folder) is refused before any battle is played."""
        def no_battles(*_args, **_kwargs):
            raise AssertionError("battles played before --report was checked")

        monkeypatch.setattr("sim.cli.decide.compare", no_battles)
        monkeypatch.setattr("sim.cli.decide.tune", no_battles)
        taken = tmp_path / "page.html"
        taken.write_text("mine")
        code = cli.main([*command, "-n", "60", "--workers", "1", "--no-progress", "--report", str(taken)])
        assert code == 2 and capsys.readouterr().err == f"{taken}:0:0: --report: cannot write (File exists)\n"
        assert taken.read_text() == "mine"

        def read_only(*_args, **_kwargs):  # a folder that is there, on a read-only disk
            raise OSError(30, "Read-only file system")

        monkeypatch.setattr("sim.cli.decide.tempfile.TemporaryFile", read_only)
        code = cli.main([*command, "-n", "60", "--workers", "1", "--no-progress", "--report", str(tmp_path)])
        err = capsys.readouterr().err
        assert code == 2 and err.endswith("--report: cannot write (Read-only file system)\n")

    @pytest.mark.parametrize("command", ["compare", "tune"])
    def test_page_name_that_is_no_file_is_refused_first(self, tmp_path, capsys, monkeypatch,
                                                        command):
        """DIR/compare.html (tune.html) that is a FIFO would be renamed over after the battles:
        refused before them, the FIFO left alone."""
        monkeypatch.setattr(f"sim.cli.decide.{command}", lambda *a, **k: pytest.fail("played"))
        page = tmp_path / f"{command}.html"
        os.mkfifo(page)
        vary = ["--vary", "sides[goblins].members[goblin].count=4,5"] if command == "compare" else [
            "--vary", "sides[goblins].members[goblin].count=4..5", "--target", "party.tpk<=0.5"]
        code = cli.main([command, str(AMBUSH), *vary, "-n", "60", "--workers", "1",
                         "--no-progress", "--report", str(tmp_path)])
        assert code == 2 and capsys.readouterr().err == (
            f"{page}:0:0: --report: not a regular file: the page would replace it\n")
        assert stat.S_ISFIFO(page.stat().st_mode)


class TestPageIsInert:
    """Names reach the page as text, never as markup."""

    def test_hostile_file_name_is_escaped(self, tmp_path, capsys):
        """A variant named <script>... appears escaped; no script element is added."""
        hostile = tmp_path / "<script>alert(1)<.yaml"
        shutil.copy(AMBUSH, hostile)
        assert cli.main(["compare", str(AMBUSH), str(hostile), "-n", "30", "--workers", "1",
                         "--no-progress", "--bestiary", str(ROOT / "bestiary"),
                         "--report", str(tmp_path / "page")]) == 0
        page = (tmp_path / "page" / "compare.html").read_text()
        assert "<script>alert(1)<" not in page
        assert "&lt;script&gt;alert(1)&lt;" in page


class TestKeysIdleInSomeVariants:
    """A key one variant leaves idle is a warning, as in any scenario: every variant plays
    (review: a sweep of count=1..6 with a target policy was refused at 1, 'one enemy')."""

    SWEPT = ("name: sweep\nrules: d20\nsides:\n  - name: heroes\n    party: true\n    members:\n"
             "      - {name: Ada, level: 2, hp: 14, tactics: {target: strongest},"
             " weapons: [{name: sword, damage: 1d8}]}\n"
             "      - {name: Bo, level: 2, hp: 14, weapons: [{name: sword, damage: 1d8}]}\n"
             "  - name: gobs\n    members:\n      - {name: gob, count: 3, hp: 9, attack_threshold: 11,"
             " defense_threshold: 12, weapons: [{name: club, damage: 1d6}]}\n")
    TOLD = "sweep.yaml:7:49: sides[0].members[0].tactics.target: does nothing here: it has one enemy"

    def test_compare_and_tune_take_a_key_another_variant_reads(self, tmp_path, capsys):
        """count=1 leaves Ada's target idle, count=3 reads it: both play, the warning told
        once and kept in the result."""
        path = tmp_path / "sweep.yaml"
        path.write_text(self.SWEPT, encoding="utf-8")
        code = cli.main(["compare", str(path), "--vary", "sides[gobs].members[gob].count=1,3",
                         "-n", "200", "--workers", "1", "--json"])
        out, err = capsys.readouterr()
        result = json.loads(out)
        assert code == 0
        assert result["variants"] == ["sides[gobs].members[gob].count=1", "sides[gobs].members[gob].count=3"]
        assert [line.split(":", 1)[1].startswith(self.TOLD.split(":", 1)[1]) for line in
                result["warnings"]] == [True]
        assert err.count(": does nothing here: ") == 1
        code = cli.main(["tune", str(path), "--vary", "sides[gobs].members[gob].count=1..4",
                         "--target", "party.win>=0.5", "-n", "200", "--workers", "1", "--json"])
        out, err = capsys.readouterr()
        assert code == 0 and [p["value"] for p in json.loads(out)["points"]] == [1, 2, 3, 4]
        assert err.count(": does nothing here: ") == 1

    def test_strict_refuses_a_key_one_variant_leaves_idle(self, tmp_path, capsys):
        """--strict makes the warning an error: exit 2 before any battle."""
        path = tmp_path / "sweep.yaml"
        path.write_text(self.SWEPT, encoding="utf-8")
        code = cli.main(["compare", str(path), "--vary", "sides[gobs].members[gob].count=1,3",
                         "--json", "--workers", "1", "-n", "50", "--strict"])
        out, err = capsys.readouterr()
        assert (code, out) == (2, "")
        assert err.count("\n") == 1 and self.TOLD.split(":", 1)[1] in err, err

    def test_two_files_each_tell_their_own(self, tmp_path, capsys):
        """A key idle in one file is told at that file, and the comparison plays."""
        one, three = tmp_path / "one.yaml", tmp_path / "three.yaml"
        one.write_text(self.SWEPT.replace("count: 3", "count: 1"), encoding="utf-8")
        three.write_text(self.SWEPT.replace(" tactics: {target: strongest},", ""), encoding="utf-8")
        code = cli.main(["compare", str(one), str(three), "--json", "--workers", "1", "-n", "50"])
        err = capsys.readouterr().err
        assert code == 0 and "one.yaml:7:49:" in err and "tactics.target: does nothing here" in err


RAIDERS = ROOT / "scenarios" / "raiders_rout.yaml"


def batch_summary(capsys, *args: str) -> dict:
    return answer(capsys, "batch", *args, "--workers", "1", "--no-progress")


class TestLeftBehind:
    """`party.left_behind` (rules §5): measured in compare as in the batch, shown where it happens."""

    def test_counts_the_battles_the_batch_counts(self, capsys):
        """Variant A is the batch on the same seeds: the same share of battles that leave a member
        behind; without a rout (flee_at 0) nobody is left behind and the fallen die."""
        result = compare(capsys, str(RAIDERS), "--vary", "options.flee_at=0.5,0", "-n", "300",
                         "--seed", "1")
        behind = result["metrics"]["party.left_behind"]
        summary = batch_summary(capsys, str(RAIDERS), "-n", "300", "--seed", "1")
        assert behind["values"][0] == summary["party"]["left_behind"]
        assert behind["values"][0]["p"] > 0.1
        assert behind["values"][1]["p"] == 0.0
        # The left behind are alive (rules §5): compare's deaths and downs are the batch's too.
        for metric in ("any_death", "any_down", "win"):
            assert result["metrics"][f"party.{metric}"]["values"][0] == summary["party"][metric]
        assert summary["party"]["any_death"]["p"] < behind["values"][0]["p"]
        assert behind["diffs"][0]["d"] == pytest.approx(-behind["values"][0]["p"])
        assert result["metrics"]["party.any_death"]["values"][1]["p"] > 0.1

    def test_said_in_words_only_where_it_happens(self, capsys):
        """The variant lines, the table and the answer say "left behind" when a variant leaves
        someone behind, and not at all when none does."""
        routed = compare(capsys, str(RAIDERS), "--vary", "options.flee_at=0.5,0", "-n", "300")
        text = " ".join(printed(routed, "compare").split())
        share = routed["metrics"]["party.left_behind"]["values"][0]["p"] * 100
        assert f"someone is left behind {share:.1f}% -> 0.0%;" in text
        assert text.count("someone is left behind") == 3  # two variant lines and the answer
        (grid,) = decision.compare_grids(routed)
        assert "someone is left behind" in [row.cells[0] for row in grid.rows]  # and a table row
        fought = compare(capsys, str(AMBUSH), "--vary", "sides[goblins].members[goblin].count=4,6",
                         "-n", "200")
        assert [v["p"] for v in fought["metrics"]["party.left_behind"]["values"]] == [0.0, 0.0]
        assert "left behind" not in printed(fought, "compare")
