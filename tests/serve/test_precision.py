"""POST /api/batch with a precision stops after the battles sim batch --precision plays, with
the same figures (the server plays chunks of 100, the CLI 500 by default)."""

from __future__ import annotations

from tests.batch.test_plan import DUEL, batch


def test_the_server_stops_where_sim_batch_does(tmp_path, capsys, client) -> None:
    cli = batch(tmp_path, capsys, "--workers", "1")
    served = client.post("/api/batch", json={"scenario": DUEL.read_text(encoding="utf-8"), "seed": 42,
                                             "precision": 0.02, "n": 100_000})
    assert served.status_code == 200, served.text
    assert {k: v for k, v in served.json().items() if k != "elapsed_s"} == cli
