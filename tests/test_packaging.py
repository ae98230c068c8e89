"""The package as ``pip install .`` makes it: every module and the shipped bestiary in the wheel,
and, installed into a fresh virtual environment, ``sim bestiary``, ``use:`` and
``sim replay --verify`` finding that bestiary from a folder with none.

The wheel is built from a copy of the sources (a build writes build/ and *.egg-info beside
them), with pip's build isolation: the venv's own setuptools may be too old to build it. It is
built with SIM_BUILD=pure (setup.py compiles nothing: the compiled path is .ci/run's editable
install, checked by tests/test_compiled.py), so the pure-Python install is the one checked here."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
SHIPPED = sorted(p.relative_to(REPO / "bestiary").as_posix()
                 for p in (REPO / "bestiary").glob("*/*.y*ml"))

WOLVES = """\
name: Wolves at the door
rules: d20
sides:
  - name: heroes
    party: true
    members:
      - {use: ranger}
      - {use: priest}
  - name: wolves
    members:
      - {use: wolf, count: 3}
"""


def test_every_package_is_listed() -> None:
    """pyproject.toml lists its packages (to map bestiary/ in as sim.bestiary): a package added
    under sim/ and not listed there would be missing from every install but an editable one."""
    packages = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "sim").rglob("__init__.py")}
    assert set(PYPROJECT["tool"]["setuptools"]["packages"]) == {*packages, "sim.bestiary"}
    assert PYPROJECT["tool"]["setuptools"]["package-dir"] == {"sim.bestiary": "bestiary"}


def _sim(venv: pathlib.Path, *argv: str, cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("SIM_BESTIARY", "PYTHONPATH")}
    return subprocess.run([str(venv / "bin" / "sim"), *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def _sources(src: pathlib.Path) -> pathlib.Path:
    """A copy of what a build reads (no compiled module of the editable install, no cache)."""
    junk = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "*.pyd", "compiled_from.json")
    for name in ("sim", "bestiary"):
        shutil.copytree(REPO / name, src / name, ignore=junk)
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(REPO / name, src / name)
    return src


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A wheel built from a copy of the repository's sources."""
    src = _sources(tmp_path_factory.mktemp("src"))
    out = tmp_path_factory.mktemp("wheel")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out),
                            str(src)], capture_output=True, text=True, timeout=600, check=False,
                           env={**os.environ, "SIM_BUILD": "pure"})
    assert built.returncode == 0, built.stderr[-3000:]
    (found,) = out.glob("*.whl")
    return found


@pytest.fixture(scope="module")
def venv(wheel: pathlib.Path, tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A fresh venv with the wheel installed (not editable); its dependencies are this
    environment's, reached through a .pth file placed after its own site-packages."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    purelib = subprocess.run([str(venv / "bin" / "python"), "-c",
                              "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    deps = sysconfig.get_paths()["purelib"]
    (pathlib.Path(purelib) / "zz_deps.pth").write_text(deps + "\n", encoding="utf-8")
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"),
                                "install", "-q", "--no-deps", str(wheel)],
                               capture_output=True, text=True, timeout=600, check=False)
    assert installed.returncode == 0, installed.stderr[-3000:]
    return venv


def test_wheel_holds_the_bestiary(wheel: pathlib.Path) -> None:
    """Every YAML file of bestiary/<rules>/ is in the wheel, under sim/bestiary/."""
    names = zipfile.ZipFile(wheel).namelist()
    assert SHIPPED and [n.removeprefix("sim/bestiary/") for n in names
                        if n.startswith("sim/bestiary/") and n.endswith((".yaml", ".yml"))] == SHIPPED
    assert "sim/report/templates/report.html" in names


def test_a_pure_build_installs_the_pure_path(wheel: pathlib.Path, venv: pathlib.Path,
                                             tmp_path: pathlib.Path) -> None:
    """SIM_BUILD=pure: no compiled module in the wheel, and `sim --version` says the path."""
    assert not [n for n in zipfile.ZipFile(wheel).namelist() if n.endswith((".so", ".pyd"))]
    version = _sim(venv, "--version", cwd=tmp_path)
    assert version.stdout == "combat-sim 0.1.0 (pure Python: not compiled)\n", version.stderr


def test_installed_bestiary_from_any_folder(venv: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """`sim bestiary d20` from a folder with no bestiary lists the installed one, saying where."""
    listed = _sim(venv, "bestiary", "d20", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    head = listed.stdout.splitlines()[0]
    assert head.startswith(f"d20 ({venv}") and head.endswith("sim/bestiary/d20 (shipped with sim)):")
    assert "  wolf: level 1" in listed.stdout
    found = _sim(venv, "bestiary", "orc", cwd=tmp_path)
    assert found.returncode == 0 and "orc brute" in found.stdout


def test_use_and_verify_from_another_folder(venv: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """A scenario's `use: wolf` finds the installed bestiary; its log verifies from elsewhere."""
    (tmp_path / "table").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "table" / "wolves.yaml").write_text(WOLVES, encoding="utf-8")
    ran = _sim(venv, "run", "wolves.yaml", "--seed", "7", "--log", "wolves.jsonl", cwd=tmp_path / "table")
    assert ran.returncode == 0, ran.stderr
    verified = _sim(venv, "replay", str(tmp_path / "table" / "wolves.jsonl"), "--verify",
                    cwd=tmp_path / "elsewhere")
    assert verified.returncode == 0, verified.stderr
    assert "identical" in verified.stdout


def test_without_a_compiler_the_build_installs_pure_and_says_so_once(tmp_path: pathlib.Path) -> None:
    """No C compiler (CC names none): the build still succeeds, with no compiled module, and
    says why in one line, naming the path it installs and where to see which (pip -v shows a
    build's lines): not one line per module."""
    src = _sources(tmp_path / "src")
    env = {k: v for k, v in os.environ.items() if k != "SIM_BUILD"}
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "-w",
                            str(tmp_path / "out"), str(src)], capture_output=True, text=True,
                           timeout=600, check=False, env={**env, "CC": "/nonexistent/cc"})
    assert built.returncode == 0, built.stderr[-3000:]
    said = [line.strip() for line in (built.stdout + built.stderr).splitlines()
            if line.strip().startswith("combat-sim:")]
    assert said == ["combat-sim: no C compiler (/nonexistent/cc not found): installing the "
                    "pure-Python path (`sim --version` says which)"]
    (found,) = (tmp_path / "out").glob("*.whl")
    assert not [n for n in zipfile.ZipFile(found).namelist() if n.endswith((".so", ".pyd"))]
