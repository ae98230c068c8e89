"""``sim serve``: the local web page (sim.serve), started with the CLI's execution options."""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence

from sim.cli.common import EXIT_OK, check_bestiary_dirs, check_execution_options, say_line, warn
from sim.errors import InputError, option_problem


def cmd_serve(args: argparse.Namespace) -> int:
    # uvicorn and Starlette load only for this command.
    from sim.serve.plays import Execution
    from sim.serve.server import Settings, hosts_warning, serve

    check_bestiary_dirs(args.bestiary, env=False)  # the server searches its own folders only
    check_execution_options(args)
    if not args.dir.is_dir():
        raise InputError(option_problem(args.dir, "--dir", "no such folder"))
    told = hosts_warning(args.host)
    if told is not None:
        warn(told)
    execution = Execution(args.workers, args.executor, args.scheduler)
    settings = Settings(args.host, args.port, args.dir, tuple(args.bestiary), execution,
                        not args.no_browser, tuple(_allowed(args.allow_host)))
    try:
        serve(settings, say_line)
    except OSError as exc:
        raise InputError(option_problem(f"{args.host}:{args.port}", "--port",
                                        f"cannot listen there ({exc.strerror or exc})")) from None
    return EXIT_OK


def _allowed(names: Sequence[str]) -> list[str]:
    """``--allow-host`` names: host names only (the port is the server's own)."""
    for name in names:
        if not re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9.-]{0,252}[A-Za-z0-9])?", name):
            raise InputError(option_problem(name, "--allow-host", "a host name (letters, digits, dots"
                                                                   " and hyphens, no port)"))
    return [name.lower() for name in names]
