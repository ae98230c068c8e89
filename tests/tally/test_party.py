"""The party's fate per battle: wins, TPK, members down and dead (mounts left out)."""

from __future__ import annotations

from sim.tally.party import PartyOutcome, party_outcome, went_down


def row(status: str, knocked_out: bool = False) -> tuple:
    return (0, status, None, knocked_out, None, ())


class TestPartyOutcome:
    def test_counts_downs_and_deaths(self):
        """A dead member and a member who went down and survived are both down; one is dead."""
        fighters = [row("dead"), row("active", knocked_out=True), row("active"), row("dead")]
        outcome = party_outcome("heroes", fighters, "heroes", (0, 1, 2))
        assert outcome == (True, False, 2, 1)

    def test_broken_mind_is_down_not_dead(self):
        """A broken mind went down (out of the fight) but is alive."""
        outcome = party_outcome("ghosts", [row("broken"), row("dead")], "heroes", (0,))
        assert outcome == (False, False, 1, 0)

    def test_left_behind_is_down_not_dead(self):
        """Rules §5: a member left behind is alive; it went down even when it was a broken mind,
        never knocked out (compare and tune read the party's fate here)."""
        for knocked_out in (True, False):
            fighters = [row("left_behind", knocked_out), row("fled")]
            assert party_outcome("raiders", fighters, "heroes", (0, 1)) == (False, False, 1, 0)

    def test_tpk_when_every_member_is_dead(self):
        """Every listed member dead is a TPK; a member left out (a mount) does not prevent it."""
        fighters = [row("dead"), row("dead"), row("active")]
        assert party_outcome("goblins", fighters, "heroes", (0, 1)).tpk
        assert not party_outcome("goblins", fighters, "heroes", (0, 1, 2)).tpk

    def test_draw_is_not_a_win(self):
        """A draw (winner None) is no win, even without a party side."""
        assert not party_outcome(None, [row("active")], None, ()).won
        assert not party_outcome(None, [row("active")], None, ()).tpk


class TestWentDown:
    """``went_down``: what the batch summary, compare and tune count as a member down."""

    def test_dead_and_broken_went_down(self):
        """A dead member and a broken mind went down, knocked out or not."""
        assert went_down(row("dead")) and went_down(row("broken"))

    def test_left_behind_went_down_even_as_a_broken_mind(self):
        """Left behind with a broken mind (never at 0 HP, never knocked out) is down."""
        assert went_down(row("left_behind", knocked_out=False))

    def test_knocked_out_and_back_went_down(self):
        """A member knocked out who stood up again (or fled) went down all the same."""
        assert went_down(row("active", knocked_out=True)) and went_down(row("fled", knocked_out=True))

    def test_untouched_and_fled_did_not(self):
        """A member never at 0 HP, or who fled without falling, did not go down."""
        assert not went_down(row("active")) and not went_down(row("fled"))


class TestFromCounts:
    """``PartyOutcome.from_counts``: the fate from counts, as the batch tallies it column by column."""

    def test_tpk_is_every_member_dead(self):
        """Three dead of three is a TPK; two of three is not."""
        assert PartyOutcome.from_counts(False, 3, 3, 3) == (False, True, 3, 3)
        assert PartyOutcome.from_counts(True, 2, 3, 3) == (True, False, 3, 2)

    def test_no_member_no_tpk(self):
        """A party of no member (mounts only) never has a TPK."""
        assert not PartyOutcome.from_counts(False, 0, 0, 0).tpk
