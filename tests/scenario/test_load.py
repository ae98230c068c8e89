"""Scenario loading end to end: every bad input is one clear ``file:line:col: path: message``."""

from __future__ import annotations

import copy
import hashlib
import os
import pathlib
import random

import pytest
import yaml

from sim.cli import main
from sim.errors import ScenarioError
from sim.model import Options, Tactics
from sim.scenario import IMPLEMENTED_SYSTEMS, load_scenario
from sim.yamlsrc import load as yaml_load
from tests.scenario.arena import BASE, REPO, variant, where


class TestBaseline:
    """The template itself is valid, so every variant tests one change."""

    def test_base_loads(self, arena):
        """The unmodified template loads with its two sides."""
        scenario = arena.load(BASE)
        assert [s.name for s in scenario.sides] == ["heroes", "goblins"]


class TestYamlLevel:
    """Problems found before any schema check: syntax, tags, encoding, emptiness, files."""

    def test_bad_indentation(self, arena):
        """A mapping value where none is allowed points at the offending colon."""
        p = arena.one("name: T\nrules: d20\n  sides: []\n")
        assert where(p) == (3, 8, "")
        assert p.message.startswith("invalid YAML: ")
        assert "mapping values are not allowed" in p.message

    def test_unclosed_flow_sequence(self, arena):
        """An unclosed ``[`` names where the sequence started."""
        p = arena.one("name: T\nrules: [d20\n")
        assert (p.line, p.path) == (3, "")
        assert p.message.startswith("invalid YAML: ")
        assert "',' or ']'" in p.message
        assert "at 2:8" in p.message

    def test_tab_indentation(self, arena):
        """A tab where indentation is expected is a syntax error at the tab."""
        p = arena.one("name: T\nrules: d20\nsides:\n\t- a\n")
        assert where(p) == (4, 1, "")
        assert p.message.startswith("invalid YAML: ")

    def test_nul_character(self, arena):
        """A NUL byte is located, not a crash."""
        p = arena.one(b"name: T\nrules: d\x0020\n")
        assert where(p) == (2, 9, "")
        assert "0000" in p.message
        assert "not allowed" in p.message

    def test_python_tag_is_not_executed(self, arena):
        """A ``!!python/object/apply`` tag is refused and its command never runs."""
        marker = arena.root / "PWNED"
        text = variant("name: Test", f'name: !!python/object/apply:os.system ["touch {marker}"]')
        p = arena.one(text)
        assert where(p) == (1, 7, "name")
        assert p.message == "YAML tags are not allowed (got '!!python/object/apply:os.system')"
        assert not marker.exists()

    def test_python_tag_on_mapping(self, arena):
        """A tag on a whole mapping is refused at the mapping."""
        marker = arena.root / "PWNED2"
        text = variant("      - {use: goblin, count: 2}",
                       "      - !!python/object/new:os.system {args: [touch " + str(marker) + "]}")
        p = arena.one(text)
        assert where(p) == (14, 9, "sides[1].members[0]")
        assert p.message.startswith("YAML tags are not allowed")
        assert not marker.exists()

    def test_non_utf8(self, arena):
        """A byte that is not UTF-8 is located at its line and column."""
        p = arena.one(b"name: T\nrules: d20 caf\xe9\n")
        assert where(p) == (2, 15, "")
        assert p.message == "not valid UTF-8 (byte 0xe9)"

    @pytest.mark.parametrize("text", [b"", b"\n\n", b"# only a comment\n", b"---\n"])
    def test_empty_file(self, arena, text):
        """An empty (or comment-only) file is one problem on the whole file."""
        p = arena.one(text)
        assert where(p) == (0, 0, "")
        assert p.message == "file is empty"
        assert str(p) == "s.yaml:0:0: (document): file is empty"

    def test_duplicate_key(self, arena):
        """A key given twice names the line of the first."""
        p = arena.one(variant("rules: d20\n", "rules: d20\nrules: d20\n"))
        assert where(p) == (3, 1, "rules")
        assert p.message == "duplicate key 'rules' (first at line 2)"

    def test_alias_loop(self, arena):
        """An alias inside its own anchor is refused, not recursed forever."""
        p = arena.one("a: &a [*a]\n")
        assert where(p) == (1, 8, "a[0]")
        assert "own anchor" in p.message

    def test_billion_laughs(self, arena, monkeypatch):
        """Alias expansion past the node limit stops with one problem."""
        # A lower limit keeps the test fast; the mechanism is the same at 100 000.
        monkeypatch.setattr(yaml_load, "MAX_NODES", 2000)
        rows = ["a: &a [x, x, x, x, x, x, x, x, x]"]
        for prev, name in zip("abcde", "bcdef", strict=True):
            rows.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
        p = arena.one("\n".join(rows) + "\n")
        assert p.message == "document too large after expanding aliases"

    def test_missing_file(self, arena):
        """A file that does not exist is one problem, no traceback."""
        p = arena.one(None, "nope.yaml")
        assert where(p) == (0, 0, "")
        assert p.file == "nope.yaml"
        assert p.message.startswith("cannot read file")

    def test_directory(self, arena):
        """A directory given as the file is one problem, no traceback."""
        (arena.root / "adir").mkdir()
        p = arena.one(None, "adir")
        assert (p.file, p.line, p.col) == ("adir", 0, 0)
        assert p.message.startswith("cannot read file")

    def test_run_on_directory(self, arena):
        """``sim run DIR`` exits 2 without a traceback."""
        code, out, err = arena.cli("run", "bestiary")
        assert code == 2
        assert out == ""
        assert "Traceback" not in err
        assert err.startswith("bestiary:0:0: (document): cannot read file")


class TestManyProblems:
    """Every problem of a file is reported at once, one line each."""

    def test_all_reported(self, arena):
        """Five independent problems give five lines, in file order."""
        text = variant(
            "rules: d20\n", "rules: d20\nmax_rounds: 0\n",
            "level: 3", 'level: "3"',
            "hp: 24", "hp: lots",
            "weapons:", "weapon:",
            "count: 2}", "count: 2, armor: true}",
        )
        problems = arena.problems(text)
        assert [where(p) for p in problems] == [
            (3, 13, "max_rounds"),
            (9, 16, "sides[0].members[0].level"),
            (10, 13, "sides[0].members[0].hp"),
            (12, 9, "sides[0].members[0].weapon"),
            (15, 40, "sides[1].members[0].armor"),
        ]
        code, _, err = arena.cli("run", "s.yaml")
        assert code == 2
        assert "Traceback" not in err
        assert len(err.splitlines()) == 5


class TestGoodInput:
    """Valid scenarios load into the specs the engine plays."""

    def test_defaults(self, arena):
        """Keys left out take the documented defaults."""
        scenario = arena.load(BASE)
        assert scenario.options == Options()
        assert (scenario.options.morale_on, scenario.options.destiny_points) == (None, 0)
        assert scenario.options.outnumbered_at == 3
        assert (scenario.max_rounds, scenario.distance, scenario.surprise) == (100, 0.0, None)
        heroes, goblins = scenario.sides
        assert (heroes.party, goblins.party) == (True, False)
        assert heroes.tactics == Tactics()  # every key inherited: the defaults below
        assert (heroes.tactics.policy, heroes.tactics.drink_at) == ("random", 0.33)
        aria = heroes.members[0]
        assert (aria.level, aria.armor, aria.heroism, aria.attack_threshold) == (3, 4, 0, None)

    def test_sha256_and_rules(self, arena):
        """The scenario remembers its rules and the hash of its bytes."""
        scenario = arena.load(BASE)
        assert scenario.rules == "d20"
        assert scenario.sha256 == hashlib.sha256(BASE.encode()).hexdigest()

    def test_utf8_bom_and_names(self, arena):
        """A UTF-8 BOM is skipped and non-ASCII names are kept."""
        text = "\ufeff" + variant("name: Aria", "name: Élodie")
        scenario = arena.load(text)
        assert scenario.sides[0].members[0].name == "Élodie"

    def test_bom_keeps_positions(self, arena):
        """After a BOM, line:col are those of the text."""
        p = arena.one("\ufeff" + variant("hp: 24", "hp: lots"))
        assert where(p) == (9, 13, "sides[0].members[0].hp")


def _repo_files(pattern: str) -> list[pathlib.Path]:
    return sorted(REPO.glob(pattern))


def _implemented(path: pathlib.Path) -> bool:
    """Whether a content file only uses what is implemented (other systems come later)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError):
        return True  # let sim validate report it
    if not isinstance(data, dict):
        return True
    return data.get("rules") in IMPLEMENTED_SYSTEMS


class TestRepositoryContent:
    """The repository's own scenarios and bestiary validate."""

    def test_content_found(self):
        """There is at least one scenario and one d20 bestiary file to check."""
        assert _repo_files("scenarios/*.yaml")
        assert _repo_files("bestiary/d20/*.yaml")

    @pytest.mark.parametrize(
        "path",
        _repo_files("scenarios/*.yaml") + _repo_files("bestiary/*/*.yaml"),
        ids=lambda p: str(p.relative_to(REPO)),
    )
    def test_validates(self, path, capsys, monkeypatch):
        """``sim validate`` accepts the file with exit code 0."""
        monkeypatch.delenv("SIM_BESTIARY", raising=False)
        if not _implemented(path):
            pytest.skip("uses a rule system or feature that is not implemented yet")
        code = main(["validate", str(path)])
        out, err = capsys.readouterr()
        assert (code, err) == (0, "")
        assert out.endswith(("ok (scenario)\n", "ok (bestiary)\n"))


CORPUS = REPO / "tests" / "data" / "invalid"


def _corpus_files() -> list[pathlib.Path]:
    return sorted([*CORPUS.glob("*.yaml"), *CORPUS.glob("bad_bestiary/*/*.yaml")])


class TestCorpus:
    """Hostile, careless and idle inputs of tests/data/invalid: exactly the expected lines,
    exit 2 where one of them is a mistake, else 0 (only warnings: valid data left idle)."""

    def test_corpus_found(self):
        """The corpus is there, with an expected file for each input."""
        files = _corpus_files()
        assert len(files) >= 15
        assert all(f.with_suffix(".expected").exists() for f in files)

    @pytest.mark.parametrize("path", _corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
    def test_told_with_expected_lines(self, path, capsys, monkeypatch):
        """``sim validate`` prints the expected warnings and problems together in file order
        (as a GM fixes them); it exits 2 when a problem is a mistake, 0 when all are warnings
        (and 2 then with --strict)."""
        monkeypatch.delenv("SIM_BESTIARY", raising=False)
        monkeypatch.chdir(CORPUS)
        name = str(path.relative_to(CORPUS))
        code = main(["validate", name])
        out, err = capsys.readouterr()
        lines = [line for line in err.splitlines()
                 if not line.endswith(("(--strict refuses them)", "(fix the problems first)"))]
        expected = path.with_suffix(".expected")
        if os.environ.get("SIM_REGEN_INVALID"):
            expected.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        assert "Traceback" not in err
        assert lines == expected.read_text(encoding="utf-8").splitlines()
        warned = [line for line in lines if ": does nothing here: " in line]
        refused = [line for line in lines if line not in warned]
        if refused:
            assert (code, out) == (2, "")
            if warned:
                assert err.splitlines()[-1].endswith(": nothing was run (fix the problems first)")
        else:
            assert code == 0
            assert out.startswith(f"{name}: ok ({_kind(name)}")
            assert out.splitlines()[0].endswith(f", {len(warned)} warning{'s' if len(warned) > 1 else ''})")
            assert main(["validate", "--strict", name]) == 2
        positions = [tuple(map(int, line.split(":")[1:3])) for line in lines]
        assert positions == sorted(positions), "problems and warnings are told in file order"


def _kind(name: str) -> str:
    return "bestiary" if name.startswith("bad_bestiary") else "scenario"


class TestReadmeExamples:
    """The docs' scenario example is valid as written: no key in it is refused."""

    def test_writing_a_scenario_example_validates(self, tmp_path, monkeypatch, capsys):
        """The first YAML block of the scenario reference validates against ./bestiary."""
        monkeypatch.delenv("SIM_BESTIARY", raising=False)
        section = (REPO / "docs" / "reference" / "scenario.md").read_text(encoding="utf-8")
        start = section.index("```yaml\n") + len("```yaml\n")
        example = tmp_path / "example.yaml"
        example.write_text(section[start:section.index("```", start)], encoding="utf-8")
        monkeypatch.chdir(REPO)
        code = main(["validate", str(example)])
        out, err = capsys.readouterr()
        assert (code, err) == (0, "")
        assert out.endswith("ok (scenario)\n")


class TestMutatedScenarios:
    """Randomly damaged scenarios are reported, never crash the validator."""

    def test_no_traceback_on_damaged_scenarios(self, tmp_path, monkeypatch):
        """150 seeded random edits of the corpus and shipped scenarios: a Scenario or a
        ScenarioError every time, never another exception."""
        # The corpus bestiary (the cwd's) and the repository's, for the shipped scenarios.
        monkeypatch.setenv("SIM_BESTIARY", str(REPO / "bestiary"))
        monkeypatch.chdir(CORPUS)
        rng = random.Random(20_261_130)
        values = [None, 0, -1, 2**40, "x", "1d6", [], {}, True, 1.5, [None], {"a": 1}]
        keys = ["terror", "spirit", "morale", "skills", "weapons", "hands", "psy", "armor",
                "gifts", "aspects", "heroism", "use", "count", "mount", "round", "do", "targets",
                "side", "height", "damage", "kind", "party", "members", "outnumbered_at"]

        def damage(node: object) -> object:
            if isinstance(node, dict):
                if node and rng.random() < 0.3:
                    key = rng.choice(list(node))
                    node[key] = copy.deepcopy(rng.choice(values))
                if rng.random() < 0.2:
                    node[rng.choice(keys)] = copy.deepcopy(rng.choice(values))
                for key in list(node):
                    if rng.random() < 0.5:
                        node[key] = damage(node[key])
            elif isinstance(node, list) and node and rng.random() < 0.5:
                i = rng.randrange(len(node))
                node[i] = damage(node[i])
            return node

        sources = sorted(CORPUS.glob("*.yaml")) + sorted((REPO / "scenarios").glob("*.yaml"))
        texts = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in sources]
        target = tmp_path / "damaged.yaml"
        for _ in range(150):
            data = damage(copy.deepcopy(rng.choice(texts)))
            target.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
            try:
                load_scenario(target)
            except ScenarioError as exc:
                assert exc.problems
