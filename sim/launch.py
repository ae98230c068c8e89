"""What the ``sim`` command starts from (the console script and ``python -m sim``): the
command, loaded with a Ctrl-C during the load (a tenth of a second) ending it quietly.

Only the command's entry points import this module: a program or a test that imports
``sim.cli`` gets its own KeyboardInterrupt, not an exit.
"""

try:
    from sim.cli import main
except KeyboardInterrupt:  # nothing begun: exit as interrupted, without a traceback
    raise SystemExit(130) from None

__all__ = ["main"]
