"""A large run folder made from a small one: its battles repeated, their indexes renumbered.

Playing a million battles takes a quarter of an hour on two shared cores; reading them
back is what the read benchmark (benchmarks.read_memory) measures, and a reader only
sees rows. So ``tile_run`` copies a real run's folder, writes its battles.parquet rows
again and again (index 0, 1, 2... to ``battles - 1``; every other column as played,
each row's seed that of the battle it copies) with the writer's encoding and row groups,
and seals the manifest and the summary with the new count through the program's own
functions. The rows' outcomes repeat with period ``len(source)``: a reader's work and
memory are those of a real run of that size; its answers (which battle is the worst)
are of the repeated rows, not of battles a real run would have played.
"""

from __future__ import annotations

import json
import pathlib
import shutil

from sim.batch.battles_file import BATTLES, ROW_GROUP, encoding
from sim.batch.folder import MANIFEST, SUMMARY, write_atomic
from sim.batch.manifest import manifest_text


def tile_run(source: pathlib.Path, target: pathlib.Path, battles: int) -> pathlib.Path:
    """``target``: the run folder ``source`` with ``battles`` battles (its rows repeated)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    shutil.copytree(source, target, ignore=shutil.ignore_patterns(".lock", "report.html"))
    rows = pq.read_table(source / BATTLES)
    schema = rows.schema
    position = schema.get_field_index("index")
    with pq.ParquetWriter(target / BATTLES, schema, **encoding(schema)) as writer:
        for start in range(0, battles, ROW_GROUP):
            stop = min(battles, start + ROW_GROUP)
            picked = pa.array([k % len(rows) for k in range(start, stop)], pa.int64())
            group = rows.take(picked)
            index = pa.array(range(start, stop), pa.int64())
            group = group.set_column(position, schema.field("index"), index)
            writer.write_table(group, row_group_size=len(group))
    manifest = json.loads((source / MANIFEST).read_text())
    manifest.pop("sha256")
    manifest.update(n=battles, battles_done=battles)
    write_atomic(target / MANIFEST, manifest_text(manifest).encode("ascii"))
    summary = json.loads((source / SUMMARY).read_text())
    summary["battles"] = battles
    write_atomic(target / SUMMARY, (json.dumps(summary, indent=2) + "\n").encode("utf-8"))
    return target
