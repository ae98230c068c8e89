"""The compiled path: the modules ``sim/compiled.py`` lists, compiled with Cython from their
own ``.py`` files (typed only by an augmenting ``.pxd`` beside one), where a C compiler is.

pyproject.toml holds the project's metadata; this file only adds the extension modules. A
build with no C compiler, without Cython, or with ``SIM_BUILD=pure`` still installs, on the
pure-Python path, and says so in one line. The C files go to build/cython/; an editable
install (``pip install -e .``) puts the compiled modules beside their sources (git-ignored),
with the stamp of the sources they were compiled from (sim/compiled_from.json).
See docs/contributing/architecture.md, "Compiled and pure paths".
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import shutil
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from types import ModuleType

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = pathlib.Path(__file__).resolve().parent
PURE = "SIM_BUILD"  # SIM_BUILD=pure: install the pure-Python path, compile nothing

# Speed, with Python's semantics: no C integer anywhere (annotations stay hints: with
# annotation typing a `float` annotation would become a C double), Python's division and
# modulo; functions stay introspectable and picklable by name (binding).
DIRECTIVES = {
    "language_level": 3,
    "binding": True,
    "annotation_typing": False,
    "cdivision": False,
    "embedsignature": False,
}
# No debug information: it doubles gcc's time on Cython's large C files and nothing reads it.
# -O1, not Python's -O3: the build takes 20 s instead of 33 s on two cores, and the battles
# run as fast (bench pairs: 1.83-2.09x the bare loop against 1.85-2.05x; 4% more
# instructions, which time does not show, as the code is mostly calls into CPython).
UNIX_FLAGS = ["-g0", "-O1"]


def _paths() -> ModuleType:
    """sim/compiled.py loaded alone (it imports nothing from sim): the build never imports sim."""
    spec = importlib.util.spec_from_file_location("sim_compiled_for_setup", ROOT / "sim" / "compiled.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PATHS = _paths()


def extension(module: str) -> Extension:
    """The extension of one listed module, named for where its file lands: a package's own
    module (``sim.rules``) is ``sim/rules/__init__.py`` compiled to ``sim/rules/__init__*.so``."""
    source = PATHS.source_of(module, ROOT / "sim")
    name = f"{module}.__init__" if source.name == "__init__.py" else module
    return Extension(name, [source.relative_to(ROOT).as_posix()])


def extensions() -> list[Extension]:
    """One extension a listed module; none when a pure build is asked."""
    return [] if pure_asked() else [extension(module) for module in PATHS.MODULES]


def pure_asked() -> bool:
    return os.environ.get(PURE) == "pure"


C_FILES = ROOT / "build" / "cython"  # the C files Cython writes, kept between builds
C_STAMP = "made_from.json"  # beside them: the digests of the sources they were made from


def c_files_stale(digests: dict[str, str], folder: pathlib.Path) -> bool:
    """Whether the C files in ``folder`` were made from other sources than ``digests`` (or
    the folder says nothing). Cython's own check remakes a module's C file when its ``.py``
    or ``.pxd`` changed, but not when a ``.pxd`` it cimports as ``from sim.rules cimport
    actors`` did: that module's old C file, compiled against the new layout of a class, is
    refused at import ("size changed") or worse. So any change remakes them all."""
    stamp = folder / C_STAMP
    try:
        return json.loads(stamp.read_text(encoding="utf-8")) != digests
    except (OSError, ValueError):
        return True


class NoCompiler(Exception):
    """The build cannot compile here: the reason, said once."""


def tell(reason: str) -> None:
    """The build's one line about the path it installs (pip shows it with -v)."""
    print(f"combat-sim: {reason}: installing the pure-Python path (`sim --version` says which)",
          file=sys.stderr, flush=True)


def remove_in_place_builds() -> None:
    """An editable build first removes the compiled modules of an earlier one (a module since
    unlisted, or one a pure build must not leave beside its source) and their stamp; it
    compiles them again."""
    for suffix in set(EXTENSION_SUFFIXES):
        for built in (ROOT / "sim").rglob(f"*{suffix}"):
            built.unlink()
    (ROOT / "sim" / PATHS.STAMP).unlink(missing_ok=True)


class BuildPy(build_py):
    """In an editable build (before build_ext), the compiled modules of an earlier build go."""

    def run(self) -> None:
        if self.editable_mode:
            remove_in_place_builds()
        if pure_asked():
            tell(f"{PURE}=pure")
        super().run()


class BuildExt(build_ext):
    """Cythonize and compile in parallel; fall back to the pure path instead of failing."""

    def run(self) -> None:
        # What is compiled, stamped once the compiled modules are where they run from.
        digests = self._digests = PATHS.sources(PATHS.MODULES, ROOT / "sim")
        try:
            super().run()
            self._stamp(digests)
        except NoCompiler as why:
            self._pure(str(why))
        except Exception as error:  # any failure to compile: the pure path still works
            self._pure(f"compiling failed ({type(error).__name__}; `pip install -v` shows the compiler's "
                       "messages above)")

    def _stamp(self, digests: dict[str, str]) -> None:
        """Beside the sources (editable) or in the wheel: the runtime runs a compiled module
        only while its sources still have these digests (sim/compiled.py)."""
        folder = ROOT / "sim" if self.inplace else pathlib.Path(self.build_lib) / "sim"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / PATHS.STAMP).write_text(json.dumps(digests, indent=1) + "\n", encoding="utf-8")

    def _pure(self, reason: str) -> None:
        # No extensions: nothing to copy beside the sources, no outputs for the wheel.
        self.extensions = []
        self.distribution.ext_modules = []
        tell(reason)

    def build_extensions(self) -> None:
        program = getattr(self.compiler, "compiler_so", None)
        if program and shutil.which(program[0]) is None:
            raise NoCompiler(f"no C compiler ({program[0]} not found)")
        try:
            from Cython.Build import cythonize
        except ImportError:
            raise NoCompiler("Cython is not installed") from None
        workers = os.cpu_count() or 1
        if self.compiler.compiler_type == "unix":
            for ext in self.extensions:
                ext.extra_compile_args = [*ext.extra_compile_args, *UNIX_FLAGS]
        # Only the sources change: the extensions keep what setuptools set on them. Every C
        # file is made again once any source changed (see c_files_stale).
        made = cythonize(self.extensions, build_dir=str(C_FILES), nthreads=workers,
                         compiler_directives=DIRECTIVES, quiet=True,
                         force=c_files_stale(self._digests, C_FILES))
        (C_FILES / C_STAMP).write_text(json.dumps(self._digests, sort_keys=True), encoding="utf-8")
        c_files = {ext.name: ext.sources for ext in made}
        for ext in self.extensions:
            ext.sources = c_files[ext.name]
        self.parallel = self.parallel or workers
        super().build_extensions()


if __name__ == "__main__":  # as setuptools runs it (a test imports it to read what it builds)
    # Asked pure, no extension at all: the wheel is a pure one (py3-none-any).
    setup(ext_modules=extensions(), cmdclass={"build_py": BuildPy, "build_ext": BuildExt})
