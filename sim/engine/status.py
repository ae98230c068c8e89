"""Status and victory: knock-outs, deaths, broken minds, waking, the per-side counts that
decide victory, the stalemate, and the end of a battle (the losers' fallen die, unless one
of theirs got away: then they are left behind).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim.engine.effects import throw_off
from sim.engine.morale import fallen
from sim.engine.state import ACTIVE, BROKEN, DEAD, FLED, LEFT_BEHIND, UNCONSCIOUS

if TYPE_CHECKING:
    from sim.engine.state import Fighter

# Alive but out of the fight: they die if their side loses with none of its members away, and
# are left behind if one got away (rules §3 broken minds, rules §5).
OUT_OF_THE_FIGHT = (UNCONSCIOUS, BROKEN)


class Status:
    """The first layer of ``Battle``: who is able, down, dead or gone, and who has won. Its state
    (under "Status" in ``Battle.__init__``): the fighters by side, the per-side counts of
    able members, the enemies cache, destiny points, the stalemate counters, the end."""

    def _drop(self, fighter: Fighter, cause: str, source: Fighter | None) -> None:
        """At 0 HP: unconscious (rules §5). With destiny points a party member (a player
        character, not its horse) dies outright unless the party spends a point to keep it
        alive, unconscious; everyone else follows the normal rule.

        One already knocked out by a serious wound (d100) fell then: its allies lost their
        tokens and its knocker got the kill (rules §4). Reaching 0 HP while out is no second
        fall: no morale change, no second ``knocked_out``; destiny still rules its fate."""
        fell_before = fighter.status == UNCONSCIOUS
        fighter.cause = cause
        lethal = self._destiny and fighter.party and fighter.counts
        if lethal and self.destiny_left == 0:
            self.kill(fighter, cause)
        else:
            if lethal:
                self.destiny_left -= 1
                fighter.saved = True
                if self.log is not None:
                    self.emit("resource_spent", actor=fighter.name, resource="destiny", amount=1,
                              left=self.destiny_left)
            if fell_before:
                return
            self._set_status(fighter, UNCONSCIOUS)
            self._ever_down.add(fighter.name)
            if self.log is not None:
                self.emit("knocked_out", target=fighter.name, cause=cause,
                          source=None if source is None else source.name)
        if self.morale_on and not fell_before:
            fallen(self.table, self._by_side[fighter.side], fighter, source)
        self._unseat(fighter, "mount fell")

    def _unseat(self, fighter: Fighter, why: str) -> None:
        """Out of the fight in the saddle, or under a rider (rules §6, mounted combat): a rider
        slides off unhurt (or, ``unconscious_rider: falls``, one knocked out with HP left
        falls as if thrown); a mount
        throws its rider (riding check, failure 1d10)."""
        if fighter.mounted_on is not None:
            if self._rider_falls and fighter.hp > 0:  # at 0 HP a fall takes nothing more
                throw_off(self, fighter, "fell out of the saddle", check=True, falls=True)
            else:
                throw_off(self, fighter, "slid out of the saddle", check=False)
        if fighter.ridden_by is not None:
            throw_off(self, fighter.ridden_by, why, check=True)

    def kill(self, fighter: Fighter, cause: str | None) -> None:
        """The fighter dies now; its ongoing effects end with it."""
        fighter.cause = cause
        self._set_status(fighter, DEAD)
        if self.log is not None:
            self.emit("died", target=fighter.name, cause=cause)
        for effect in list(fighter.effects):
            effect.end("died")

    def lose_spirit(self, member: Fighter, loss: int, source: Fighter) -> None:
        """Spirit points lost to terror; at 0 the mind is broken (out of the fight, alive)."""
        before = member.spirit or 0
        member.spirit = max(0, before - loss)
        if self.log is not None:
            self.emit(
                "spirit_lost", target=member.name, amount=loss, source=source.name,
                spirit_before=before, spirit_after=member.spirit,
            )
        if member.spirit == 0 and member.able:
            member.cause = "terror"  # what it dies of if its side loses (rules §3, 5)
            self._set_status(member, BROKEN)
            if self.log is not None:
                self.emit("effect_started", target=member.name, effect="broken")

    def set_unconscious(self, fighter: Fighter, cause: str, source: Fighter | None = None) -> None:
        """Knocked out with HP left (a serious wound): out of the fight until it wakes.
        It has fallen all the same: knocked out in the stats, a blow to its allies' morale,
        and a kill for ``source``, who dealt the wound (rules §4), as a blow to 0 HP is."""
        fighter.cause = cause  # what it dies of if its side loses while it is out
        self._set_status(fighter, UNCONSCIOUS)
        self._ever_down.add(fighter.name)
        if self.log is not None:
            self.emit("knocked_out", target=fighter.name, cause=cause,
                      source=None if source is None else source.name, serious_wound=True)
        if self.morale_on:
            fallen(self.table, self._by_side[fighter.side], fighter, source)
        self._unseat(fighter, "mount knocked out")

    def wake(self, fighter: Fighter) -> None:
        """Back in the fight after a knock-out that left it HP. A destiny point spent on it
        saved it once: should it fall again, that save no longer keeps it alive (rules §5)."""
        fighter.saved = False
        self._set_status(fighter, ACTIVE)

    def _set_status(self, fighter: Fighter, status: str) -> None:
        """Change a status, keeping ``able``, the per-side counts and caches in step."""
        was, now = fighter.status == ACTIVE, status == ACTIVE
        fighter.status = status
        fighter.able = now
        if was == now:
            return
        self.enemies_cache.clear()
        if fighter.spec.weapons:
            self._armed += 1 if now else -1
        if not fighter.counts:
            return  # a mount: its state never decides victory
        before = self._able[fighter.side]
        self._able[fighter.side] = after = before + (1 if now else -1)
        self._standing += (after > 0) - (before > 0)

    def able_enemies(self, fighter: Fighter) -> list[Fighter]:
        """Able members of every other side, in listed order (cached until a status changes)."""
        enemies = self.enemies_cache.get(fighter.side)
        if enemies is None:
            side = fighter.side
            enemies = [f for f in self.fighters if f.able and f.side != side]
            self.enemies_cache[side] = enemies
        return enemies

    def _decided(self) -> bool:
        """Victory: at most one side has able members. Ends the battle when so."""
        if self.ended:
            return True
        if self._standing > 1:
            return False
        standing = [side for side, count in self._able.items() if count > 0]
        self._finish(standing[0] if standing else None)
        return True

    def _stalemate(self) -> bool:
        """Certain that nobody can ever change anybody's HP or status again: nobody able holds
        a weapon (checked by the caller) nor a potion (it may heal or wake someone), nothing
        is ongoing (fire, poison, water, a serious wound that will wake), no scripted event is
        left and no side is about to rout."""
        if self.table.round < self._last_scripted:
            return False
        if any(f.effects or (f.able and f.items) for f in self.fighters):
            return False
        if self._flee_at is None:
            return True
        return not any(0 < able < self._flee_at * self._starting[side]
                       for side, able in self._able.items())

    def _finish(self, winner: str | None, stopped: str | None = None) -> None:
        """Log the end. A losing side's fallen (unconscious members and broken minds) die when
        none of its members got away (unless saved by destiny); when one fled, they are left
        behind, alive at their HP (rules §5: death is final only when every character is
        down). ``stopped`` says why a draw came before any side won: stalemate or max_rounds."""
        self.ended = True
        self.winner = winner
        lost = {side for side, able in self._able.items() if side != winner and able == 0}
        escaped = {f.side for f in self.fighters if f.status == FLED and f.counts and f.side in lost}
        for fighter in self.fighters:
            if fighter.side not in lost or fighter.status not in OUT_OF_THE_FIGHT:
                continue
            if fighter.side in escaped:
                fighter.status = LEFT_BEHIND  # out already: no count or cache changes
            elif not fighter.saved:
                self.kill(fighter, fighter.cause)
        if self.log is not None:
            names = {status: [f.name for f in self.fighters if f.status == status]
                     for status in (DEAD, UNCONSCIOUS, BROKEN, FLED, LEFT_BEHIND)}
            left = names[LEFT_BEHIND]
            self.emit(
                "battle_ended", winner=winner, rounds=self.table.round,
                survivors=[f.name for f in self.fighters if f.status != DEAD],
                dead=names[DEAD], knocked_out=names[UNCONSCIOUS], broken=names[BROKEN],
                fled=names[FLED], **({"left_behind": left} if left else {}),
                **({"stopped": stopped} if stopped else {}),
            )
