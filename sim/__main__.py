"""Entry point for ``python -m sim``."""

from sim.cli import main

raise SystemExit(main())
