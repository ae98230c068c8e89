"""The README and the GM guide say what the code does: their encounters validate, the first
encounter's verdict is the one a real run prints, and no page points to files outside the
repository."""

from __future__ import annotations

import json
import pathlib
import re

import pytest

from sim.cli import main
from sim.report.terminal import headline

REPO = pathlib.Path(__file__).resolve().parent.parent
README = REPO / "README.md"
GUIDE = REPO / "docs" / "guide"
# Pages whose YAML encounters a GM copies as they are.
EXAMPLE_PAGES = (README, GUIDE / "first-encounter.md", GUIDE / "stat-blocks.md")


def yaml_blocks(page: pathlib.Path) -> list[str]:
    """The ```yaml blocks of a page that are whole scenarios (a rules: and sides: of their own)."""
    blocks = re.findall(r"```yaml\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    return [b for b in blocks if re.search(r"^rules:", b, re.M) and re.search(r"^sides:", b, re.M)]


def printed_headline(page: pathlib.Path) -> str:
    """The first "Difficulty ..." sentence of a page's pasted output, its wrapped lines joined."""
    text = page.read_text(encoding="utf-8")
    start = text.index("\nDifficulty ") + 1
    end = re.compile(r"\sof battles\.").search(text, start).end()
    return " ".join(text[start:end].split())


def first_encounter(page: pathlib.Path) -> str:
    """The page's encounter named "Orc and wolves"."""
    return next(b for b in yaml_blocks(page) if "name: Orc and wolves" in b)


class TestExamples:
    """The encounters of the README and the guide are valid as written."""

    @pytest.mark.parametrize("page", EXAMPLE_PAGES, ids=lambda p: p.name)
    def test_encounters_validate(self, page, tmp_path, monkeypatch, capsys):
        """Each whole scenario of the page validates against the repository's bestiary."""
        monkeypatch.delenv("SIM_BESTIARY", raising=False)
        monkeypatch.chdir(REPO)
        blocks = yaml_blocks(page)
        assert blocks, f"no scenario in {page.name}"
        for number, block in enumerate(blocks):
            example = tmp_path / f"example{number}.yaml"
            example.write_text(block, encoding="utf-8")
            code = main(["validate", str(example)])
            out, _ = capsys.readouterr()
            assert code == 0, (page.name, number, out)
            assert out.endswith("ok (scenario)\n"), (page.name, number, out)

    def test_first_encounter_is_the_same_on_both_pages(self):
        """The README's first encounter is the guide's, so one verdict explains both."""
        assert first_encounter(README) == first_encounter(GUIDE / "first-encounter.md")

    def test_first_encounter_verdict_is_a_real_run(self, tmp_path, monkeypatch, capsys):
        """The headline pasted in the README and the guide is what 2,000 battles, seed 1, print."""
        monkeypatch.delenv("SIM_BESTIARY", raising=False)
        monkeypatch.chdir(REPO)
        scenario = tmp_path / "first.yaml"
        scenario.write_text(first_encounter(README), encoding="utf-8")
        code = main(["batch", str(scenario), "-n", "2000", "--seed", "1", "--json",
                     "--out", str(tmp_path / "run")])
        out, _ = capsys.readouterr()
        assert code == 0
        expected = " ".join(headline(json.loads(out)).split())
        assert printed_headline(README) == expected
        assert printed_headline(GUIDE / "first-encounter.md") == expected


def sample_outputs(page: pathlib.Path) -> dict[str, list[str]]:
    """The page's pasted terminal outputs: each block that starts with ``$ COMMAND``, by command."""
    blocks = re.findall(r"```\n\$ (.*?)\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    return {command: output.splitlines() for command, output in blocks}


class TestSampleOutputs:
    """The README's outputs are what 80 columns print (they were pasted 100 columns wide)."""

    @pytest.mark.parametrize("page", [README, GUIDE / "first-encounter.md"], ids=lambda p: p.name)
    def test_no_sample_line_is_wider_than_80_columns(self, page):
        outputs = sample_outputs(page)
        assert "sim batch first.yaml -n 2000 --seed 1" in outputs and "sim run first.yaml --seed 1" in outputs
        # `sim bestiary` lists an entry a line, for grep: a terminal wraps them as it likes.
        assert all(len(line) <= 80 for command, lines in outputs.items() for line in lines
                   if not command.startswith("sim bestiary"))

    def test_the_batch_sample_is_the_real_output(self, tmp_path, monkeypatch, capsys):
        """Line for line (the "..." where rows are left out, and the run folder's date, aside)."""
        monkeypatch.delenv("SIM_BESTIARY", raising=False)
        monkeypatch.setenv("COLUMNS", "80")
        monkeypatch.chdir(tmp_path)
        (tmp_path / "first.yaml").write_text(first_encounter(README), encoding="utf-8")
        assert main(["batch", "first.yaml", "-n", "2000", "--seed", "1", "--no-progress"]) == 0
        printed = [line.rstrip() for line in capsys.readouterr().out.splitlines() if line.strip()]
        shown = sample_outputs(README)["sim batch first.yaml -n 2000 --seed 1"]
        cut = shown.index("...")
        assert shown[:cut] == printed[:cut]
        assert shown[cut + 1:-1] == printed[-len(shown) + cut + 1:-1]
        assert re.fullmatch(r"run folder: runs/first-s1-\d{8}-\d{6}", shown[-1])
        assert printed[-1].startswith("run folder: runs/first-s1-")


# The folder the specification was written in, outside the repository (spelt in two parts so
# that this file does not point to it either).
SPEC_FOLDER = "../" + "shared"

class TestStandsAlone:
    """The README and the docs point to their own pages, never to files outside the repository."""

    def test_no_pointer_to_the_spec_files(self):
        """No pointer to the spec's folder, RULES.md or ARCHITECTURE.md in the README or docs."""
        pages = [README, *sorted((REPO / "docs").rglob("*.md"))]
        for page in pages:
            text = page.read_text(encoding="utf-8")
            for pointer in (SPEC_FOLDER, "RULES.md", "ARCHITECTURE.md"):
                assert pointer not in text, (page.relative_to(REPO), pointer)

    def test_no_pointer_to_the_spec_files_in_code_or_data(self):
        """The code, the scenarios, the bestiary and the benchmarks cite the docs' rules by
        section ("rules §6"), not the spec files they were written from."""
        files = [path for folder in ("sim", "scenarios", "bestiary", "benchmarks", ".ci")
                 for path in sorted((REPO / folder).rglob("*")) if path.is_file()
                 and path.suffix in ("", ".py", ".yaml", ".md", ".html", ".js", ".css")]
        for path in files:
            text = path.read_text(encoding="utf-8")
            for pointer in (SPEC_FOLDER, "RULES.md", "ARCHITECTURE.md", "RULES 1", "RULES 2", "RULES 3",
                            "RULES 4", "RULES 5", "RULES 6", "RULES 7", "RULES 8"):
                assert pointer not in text, (path.relative_to(REPO), pointer)
