"""Files, locks, processes and the terminal's keys: what every layer may use, importing
nothing of sim but ``sim.errors`` and ``sim.terminal``.

::

    infile    opening input files (scenarios, bestiaries, logs, manifests) without blocking
    jsonin    JSON written outside this process (event logs, manifests, summaries), read
    runlock   the run folder's lock: one process at a time writes a run
    shutdown  stopping cleanly: Ctrl-C and SIGTERM, workers that never outlive the main one
    arrow     how pyarrow is loaded (without numpy in sim's own processes)
"""
