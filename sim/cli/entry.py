"""The ``sim`` command: parse, run the command, map what went wrong to an exit code
(0 ok, 1 internal error, 2 bad input, 130 interrupted)."""

from __future__ import annotations

import contextlib
import os
import sys
import traceback
from collections.abc import Sequence

from sim.cli.args import build_parser
from sim.cli.batch import cmd_batch
from sim.cli.common import (
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    by_line,
    warn,
    warn_problem,
)
from sim.cli.decide import cmd_compare, cmd_tune
from sim.cli.new import cmd_new
from sim.cli.odds import cmd_odds
from sim.cli.play import cmd_replay, cmd_report, cmd_run, cmd_validate
from sim.cli.serve import cmd_serve
from sim.cli.show import cmd_bestiary, cmd_show
from sim.cli.spread import cmd_spread
from sim.cli.srd import cmd_import
from sim.errors import InputError, ScenarioError


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 1 internal error, 2 bad input)."""
    handlers = {"run": cmd_run, "validate": cmd_validate, "replay": cmd_replay,
                "report": cmd_report, "compare": cmd_compare, "tune": cmd_tune,
                "show": cmd_show, "bestiary": cmd_bestiary, "new": cmd_new,
                "serve": cmd_serve, "spread": cmd_spread, "import": cmd_import, "odds": cmd_odds,
                "batch": lambda a: cmd_batch(a, list(argv if argv is not None else sys.argv[1:]))}
    try:
        args = build_parser().parse_args(argv)  # exits 2 on usage errors
        return handlers[args.command](args)
    except ScenarioError as exc:
        for problem in by_line(exc.problems):
            warn(problem)
        return EXIT_INPUT
    except InputError as exc:
        warn_problem(exc)
        return EXIT_INPUT
    except BrokenPipeError:  # `sim run ... | head`: the reader left; nothing is lost
        _stdout_to_devnull()  # what is left in its buffer would fail again as Python exits
        return EXIT_OK
    except KeyboardInterrupt:
        warn("sim: interrupted")
        return EXIT_INTERRUPTED
    except OSError as exc:  # the environment, not the input: a full disk, a read-only folder
        warn_problem(_os_problem(exc))
        return EXIT_INPUT
    except MemoryError:  # the machine's limit, not a bug: one line, not a traceback
        warn_problem("sim: out of memory: the command needs more than this machine (or its limit)"
                     " allows; a smaller -n, --chunk or fewer --workers need less")
        return EXIT_INPUT
    except UnicodeEncodeError as exc:  # a path or name the system's encoding cannot hold
        # What could not be encoded is the path itself: shown with its escapes, as the file.
        warn_problem(f"{exc.object}:0:0: (document): cannot encode"
                     f" {exc.object[exc.start:exc.end]!r} for the system ({exc.reason})")
        return EXIT_INPUT
    except Exception:  # the last line of defence: a bug, exit 1
        warn(f"sim: internal error, please report it:\n{traceback.format_exc()}")
        return EXIT_INTERNAL


def _stdout_to_devnull() -> None:
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _os_problem(exc: OSError) -> str:
    """One ``file:0:0: (document): reason`` line for what the system refused. A rename names
    its target second (``filename2``): that is the file being written, not its temporary."""
    where = exc.filename2 if exc.filename2 is not None else exc.filename
    if where is None:
        return f"sim: {exc.strerror or exc}"
    return f"{where}:0:0: (document): {exc.strerror or exc}"
