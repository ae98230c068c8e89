"""Which battles each chunk of a batch plays, and where ``--precision`` may stop it.

The stopping rule looks at the headline's interval only at checkpoints, battle counts
that depend on nothing but the rule: every 100 battles up to 10,000, every 1,000 up to
100,000, and so on (a stop overshoots the first count that was precise enough by at most
100 battles below 1,000, and by at most a tenth past it). Chunks are cut at checkpoints,
so ``--chunk``, ``--workers`` and the server (which plays chunks of 100) all stop after
the same battles, with the same figures. Without ``--precision`` the chunks are
``--chunk`` battles each, as they always were. """

from __future__ import annotations

import attrs

FIRST_STEP = 100  # battles between checkpoints, up to a hundred times as many battles


def checkpoint_step(battles: int) -> int:
    """The spacing of the checkpoints from ``battles`` on: 100 below 10,000, 1,000 below
    100,000, ..."""
    step = FIRST_STEP
    while battles >= step * 100:
        step *= 10
    return step


def is_checkpoint(battles: int) -> bool:
    return battles > 0 and battles % checkpoint_step(battles) == 0


def next_checkpoint(battles: int) -> int:
    """The first checkpoint after ``battles``."""
    step = checkpoint_step(battles)
    return (battles // step + 1) * step


@attrs.define
class ChunkPlan:
    """The chunks of a batch of ``n`` battles, numbered from 0: ``bounds(number)``."""

    n: int
    chunk: int
    precision: float | None = None
    _starts: list[int] = attrs.field(factory=lambda: [0])

    def bounds(self, number: int) -> tuple[int, int]:
        """Battles ``start..stop-1`` of chunk ``number`` (start == n: past the last one)."""
        while len(self._starts) <= number + 1:
            self._starts.append(self._stop(self._starts[-1]))
        return self._starts[number], self._starts[number + 1]

    def _stop(self, start: int) -> int:
        if start >= self.n:
            return self.n
        stop = min(self.n, (start // self.chunk + 1) * self.chunk)
        return min(stop, next_checkpoint(start)) if self.precision is not None else stop

    def may_stop_at(self, battles: int) -> bool:
        """Whether the stopping rule looks at the counts after ``battles`` battles."""
        return self.precision is not None and is_checkpoint(battles)
