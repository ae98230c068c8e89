"""Entry point for ``python -m sim``."""

from sim.launch import main

raise SystemExit(main())
