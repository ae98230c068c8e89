"""The shape of the package (issue 14): no runtime import cycle, no function-level import of
a ``sim`` module to dodge one, and modules small enough to read in one sitting."""

from __future__ import annotations

import ast
import os
import pathlib
import subprocess
import sys

SIM = pathlib.Path(__file__).resolve().parent.parent / "sim"
MAX_LINES = 400  # "about 400": a module past this has a split by concept waiting
# sim modules that may be imported inside a function, and why: never to dodge a cycle, only
# to keep a heavy third-party library out of every `sim` start.
LAZY = {"sim.replay.ui": "textual, about 0.6 s to import: only an interactive replay pays it",
        "sim.report": "rich's console, Jinja2 and the report's helpers, about 25 ms to import: only"
                      " commands that print tables or write a page pay it (not `sim batch --json`)",
        "sim.serve": "Starlette and uvicorn, about 0.1 s to import: only `sim serve` pays it"}


def module_name(path: pathlib.Path) -> str:
    parts = path.relative_to(SIM.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(SIM.rglob("*.py"))}


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _targets(node: ast.Import | ast.ImportFrom, here: str) -> list[str]:
    """The ``sim`` modules an import statement loads (a name imported from a package counts
    as its submodule when there is one)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name in MODULES]
    base = node.module or ""
    if node.level:  # relative: resolve against this module's package
        package = here if MODULES[here].name == "__init__.py" else here.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{base}".rstrip(".")
    found = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in MODULES]
    return found or ([base] if base in MODULES else [])


def runtime_imports(name: str) -> set[str]:
    """The ``sim`` modules this module imports when it is loaded (not under TYPE_CHECKING, not
    inside a function)."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    found: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.update(_targets(node, name))
            elif isinstance(node, ast.If) and not _type_checking(node):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
    visit(tree.body)
    return found - {name}


def test_no_runtime_import_cycle() -> None:
    """The module graph, as Python loads it, has no cycle."""
    graph = {name: runtime_imports(name) for name in MODULES}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def walk(name: str) -> list[str] | None:
        state[name] = 1
        path.append(name)
        for nxt in sorted(graph[name]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (cycle := walk(nxt)):
                return cycle
        path.pop()
        state[name] = 2
        return None

    for name in sorted(graph):
        if name not in state:
            cycle = walk(name)
            assert cycle is None, " -> ".join(cycle)


def _lazy(target: str) -> bool:
    """A module of LAZY, or one of its package's."""
    return any(target == lazy or target.startswith(f"{lazy}.") for lazy in LAZY)


def test_no_function_level_import_of_sim() -> None:
    """Every ``sim`` import sits at module level (a third-party library may load lazily, and
    so may the module that wraps one, listed in LAZY)."""
    late = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    if not isinstance(inner, (ast.Import, ast.ImportFrom)):
                        continue
                    late += [f"{name}:{inner.lineno} imports {target}"
                             for target in _targets(inner, name) if not _lazy(target)]
    assert late == []


def test_modules_stay_small() -> None:
    """No module over ~400 lines: each concept has its own module."""
    sizes = {name: len(path.read_text(encoding="utf-8").splitlines())
             for name, path in MODULES.items()}
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}


def test_the_checks_see_imports() -> None:
    """The graph is not empty: the engine loads its concepts, stacked one on the next (Battle on
    Clock on Turns on Combat on Status), and the rule systems."""
    assert "sim.engine.clock" in runtime_imports("sim.engine.battle")
    assert "sim.engine.turn" in runtime_imports("sim.engine.clock")
    assert "sim.engine.combat" in runtime_imports("sim.engine.turn")
    assert "sim.engine.status" in runtime_imports("sim.engine.combat")
    assert "sim.rules.d20" in runtime_imports("sim.rules.systems")
    assert "sim.engine" not in runtime_imports("sim.rules.d20")


def test_start_loads_no_heavy_library_it_does_not_use() -> None:
    """``sim`` starts without structlog (only logs need it), rich or the report package (only
    tables and pages need them), or pyarrow and numpy (only runs and reports): together well
    over 100 ms of every command's start."""
    probe = ("import sys, sim.cli; print(sorted({m.split('.')[0] for m in sys.modules}"
             " & {'structlog', 'rich', 'jinja2', 'textual', 'matplotlib', 'pyarrow', 'numpy'}),"
             " 'sim.report' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                            cwd=SIM.parent)
    assert result.stdout.split("\n")[0] == "[] False"


def test_start_asks_numpy_for_one_blas_thread() -> None:
    """The command sets OPENBLAS_NUM_THREADS=1 before pyarrow imports numpy (whose BLAS threads
    would spin a core for nothing in every process), and keeps a value the user set."""
    probe = "import os, sim.cli; print(os.environ['OPENBLAS_NUM_THREADS'])"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    for given, expected in ((None, "1"), ("4", "4")):
        run_env = env if given is None else {**env, "OPENBLAS_NUM_THREADS": given}
        result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                                check=True, cwd=SIM.parent, env=run_env)
        assert result.stdout.strip() == expected


def test_the_root_stays_small() -> None:
    """At most about ten modules at the root of sim/: a concept lives in its layer's folder."""
    assert len(list(SIM.glob("*.py"))) <= 10


def test_every_package_says_what_it_owns_and_may_import() -> None:
    """Each package's __init__ has a docstring naming what it may import."""
    silent = [name for name, path in MODULES.items() if path.name == "__init__.py" and name != "sim"
              and "import" not in (ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "")]
    assert silent == []


def _package(module: str) -> str:
    """``sim.rules.d20`` -> ``rules``; a root module is its own package (``model``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def test_no_two_packages_import_each_other_even_for_type_hints() -> None:
    """Every import counts here, those under TYPE_CHECKING and inside functions too: the
    packages form a graph without a cycle (the rules used to name the engine's Fighter and
    Table for their hints while the engine imports the rules; the base classes of sim.rules.actors
    ended that)."""
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        edges = graph.setdefault(_package(name), set())
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges.update(_package(t) for t in _targets(node, name) if t.startswith("sim."))
    for package, edges in graph.items():
        edges.discard(package)
    done: set[str] = set()

    def walk(package: str, path: list[str]) -> None:
        assert package not in path, " -> ".join([*path[path.index(package):], package])
        if package in done:
            return
        for nxt in sorted(graph.get(package, ())):
            walk(nxt, [*path, package])
        done.add(package)

    for package in sorted(graph):
        walk(package, [])
