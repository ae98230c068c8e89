"""What the ``sim`` command starts from (the console script and ``python -m sim``): the
command, loaded with a Ctrl-C during the load (a tenth of a second) ending it quietly,
and a Ctrl-C after it has ended changing nothing.

Only the command's entry points import this module: a program or a test that imports
``sim.cli`` gets its own KeyboardInterrupt, not an exit.
"""

try:
    import signal

    from sim.cli import main as run_command
    from sim.io.arrow import own_process
except KeyboardInterrupt:  # nothing begun: exit as interrupted, without a traceback
    raise SystemExit(130) from None


def main() -> int:
    """The command's exit code. Once the command has returned, Ctrl-C is ignored: a late
    one (its output printed, its files written) would make the process die of SIGINT
    while Python exits, telling a finished command as interrupted."""
    own_process()  # the command's process is sim's alone: pyarrow may load without numpy
    code = run_command()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return code


__all__ = ["main"]
