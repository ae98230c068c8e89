"""A turn and its action economy: standing up, leaving a hazard, rescues, potions, routs,
then moving and attacking within the turn's budget of half-actions (rules §2).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim.engine.combat import Combat
from sim.engine.effects import ESCAPABLE, Asphyxiating
from sim.engine.items import use_items
from sim.engine.state import FLED
from sim.engine.tactics import approach_gap, choose_target, choose_weapon
from sim.model import MELEE_REACH_M

if TYPE_CHECKING:
    from sim.engine.state import Fighter


class Turns(Combat):
    """A layer of ``Battle`` (on ``Combat``): what one fighter does with its turn. Its state (under "Turns" in
    ``Battle.__init__``): the economy, the rout, whether the field has spread, the focus
    tactic's shared targets."""

    def _take_turn(self, fighter: Fighter, announced: bool = False) -> None:
        """Act if able, unless the turn is lost; the hot path when nothing special is on."""
        if not fighter.able:
            return
        log = self.log
        if log is not None and not announced:
            log.append({"event": "turn_started", "round": self.table.round, "t": self.table.t,
                        "actor": fighter.name})
        if fighter.skip_turns > 0:
            fighter.skip_turns -= 1
            if self.log is not None:
                self.emit("turn_skipped", actor=fighter.name)
            return
        economy = self.economy
        budget, moves, can_walk = self._budget, 0, True
        if self._special or fighter.prone or fighter.effects:
            prepared = self._prepare_turn(fighter)
            if prepared is None:
                return
            budget, moves, can_walk = prepared
        elif fighter.weapon_at_hand is None:
            return  # nothing to fight with: it stays where it is
        # Spend the turn's budget: attack what is in reach, else move toward it.
        attacks = 0
        cache = self.enemies_cache
        while budget > 0 and fighter.able:
            spread = self.spread  # a move below may spread the field
            enemies = cache.get(fighter.side) or self.able_enemies(fighter)
            target = choose_target(fighter, enemies, spread, self.table.draw, self.focus)
            if target is None:
                return
            if spread or not fighter.fixed_at_hand:
                chosen = choose_weapon(fighter, abs(target.x - fighter.x) if spread else 0.0)
                if chosen is None:
                    if (not can_walk or moves >= economy.max_moves or economy.move_cost > budget
                            or (attacks and not economy.move_after_attack)):
                        self._item_instead(fighter, budget)
                        return
                    stop_at = approach_gap(fighter)
                    run = stop_at is not None and self._should_run(fighter, target, budget, moves,
                                                                   stop_at)
                    # None: nothing it can use at any distance, it stays out of reach; False:
                    # already as close as it means to be (no empty move).
                    if stop_at is None or not self._move(fighter, target, stop_at, run):
                        self._item_instead(fighter, budget)
                        return
                    moves += 2 if run else 1
                    budget -= economy.run_cost if run else economy.move_cost  # type: ignore[operator]
                    if fighter.items and budget > 0:
                        # The move may have brought it within 2 m of a downed ally: the policy
                        # pours before attacking (rules §8), with what the turn has left: d100's
                        # other half-action, d20's action (move, then the action); in 2d10
                        # and d10 the move was the turn.
                        budget = use_items(self.table, fighter, self._by_side[fighter.side],
                                           economy.item_cost or budget, budget, self.wake)
                    continue
                weapon, cost, arm = chosen
            else:  # everyone stands together: the weapon at hand, its cost known
                weapon, cost, arm = fighter.weapon_at_hand, fighter.cost_at_hand, fighter.arm_at_hand
            if attacks >= self._max_attacks or cost > budget or (
                    fighter.items and self._item_instead(fighter, budget)):
                return
            ended = self.attack(fighter, target, weapon, arm)
            attacks += 1
            budget -= cost
            if ended or (attacks >= self._max_attacks and not self._move_after_attack):
                return  # a fumble, or the turn is over (d20): draw no die, touch no target
            if fighter.prone:  # thrown from the saddle (rules §6): the attack is lost, not the
                if budget < economy.stand_cost:  # turn; standing up is a half-action
                    return
                budget -= economy.stand_cost
                self._stand_up(fighter)

    def _prepare_turn(self, fighter: Fighter) -> tuple[int, int, bool] | None:
        """Before a turn where a rout, a fall, a hazard, a rescue or a mount may change
        things: (budget, moves used, whether it may walk), or None when the turn is spent."""
        if self._flee_at is not None and self._routs(fighter.side):
            self.flee(fighter)
            return None
        budget, moves = self._before_acting(fighter, self.economy.budget)
        if budget is None:
            return None  # a full-action rescue
        economy = self.economy
        if fighter.items and (not economy.item_after_move or fighter.weapon_at_hand is None):
            # Drink, or pour into a downed ally. d20 (item_after_move) does it after the move, in
            # the attack's place, so once a turn: here only a fighter with no weapon, whose
            # move is no second drink (rules §2, §8).
            cost = economy.item_turn_cost
            cap = min(budget, cost) if economy.item_after_move else budget
            budget -= cap - use_items(self.table, fighter, self._by_side[fighter.side], cost, cap,
                                      self.wake)
        if budget == 0 or fighter.weapon_at_hand is None:
            return None  # the turn is spent, or nothing to fight with
        # A ridden mount moves with its rider; a trapped fighter does not move at all.
        can_walk = fighter.ridden_by is None and not (fighter.effects and self._trapped(fighter))
        return budget, moves, can_walk

    def _item_instead(self, fighter: Fighter, budget: int) -> bool:
        """d20: the item the policy wants used now, in place of the attack (after the move, if
        any): whether one was used (the turn is then over)."""
        economy = self.economy
        if not (economy.item_after_move and fighter.items and budget >= economy.item_turn_cost):
            return False
        cost = economy.item_turn_cost
        return use_items(self.table, fighter, self._by_side[fighter.side], cost, cost, self.wake) == 0

    def _before_acting(self, fighter: Fighter, budget: int) -> tuple[int | None, int]:
        """Stand up, get out of a hazard, or rescue a drowning ally: (budget left, moves)."""
        economy = self.economy
        moves = 0
        if fighter.prone and budget >= economy.stand_cost:
            budget -= economy.stand_cost
            self._stand_up(fighter)
        for effect in list(fighter.effects):
            if isinstance(effect, ESCAPABLE) and effect.escape == "move" and budget >= economy.move_cost:
                effect.end("left the zone")
                budget -= economy.move_cost
                moves += 1
        if not fighter.counts:
            return budget, moves  # a mount neither rescues nor helps anyone up
        # Only an ally free of the hazards can pull another out (rules §6, rescue); only hazards
        # and a timeline put anyone where it needs pulling out.
        if (self._perils and budget == economy.budget and not self._trapped(fighter)
                and self._rescue(fighter)):
            return None, moves  # a rescue is a full action
        if budget >= economy.stand_cost and self._help_up(fighter):
            budget -= economy.stand_cost
        return budget, moves

    def _stand_up(self, fighter: Fighter) -> None:
        fighter.prone = False
        if self.log is not None:
            self.emit("stood_up", actor=fighter.name)

    def _help_up(self, fighter: Fighter) -> bool:
        """Help a fallen ally in reach to its feet (a half-action): it need not spend its own."""
        for ally in self._by_side[fighter.side]:
            if ally.prone and ally.able and abs(ally.x - fighter.x) <= MELEE_REACH_M:
                ally.prone = False
                if self.log is not None:
                    self.emit("helped_up", actor=fighter.name, target=ally.name)
                return True
        return False

    def _routs(self, side: str) -> bool:
        """Rout (option flee_at): once a side's able members fall below that fraction of those
        it started with, it flees at its next turns."""
        if side not in self._routed and self._able[side] < self._flee_at * self._starting[side]:
            self._routed.add(side)
        return side in self._routed

    def flee(self, fighter: Fighter) -> None:
        """The fighter leaves the battle and survives it; a mount carries its rider away."""
        self._set_status(fighter, FLED)
        if self.log is not None:
            self.emit("fled", target=fighter.name)
        for effect in list(fighter.effects):
            effect.end("fled")
        mount = fighter.mounted_on
        if mount is not None and mount.present:
            self._set_status(mount, FLED)
            if self.log is not None:
                self.emit("fled", target=mount.name)

    def _trapped(self, fighter: Fighter) -> bool:
        """Held in a hazard it cannot leave (``escape: none``): it cannot walk either."""
        return any(isinstance(e, ESCAPABLE) and e.escape == "none" for e in fighter.effects)

    def _rescue(self, fighter: Fighter) -> bool:
        """Pull out an ally in reach who is drowning (or stuck in fire) and cannot get out
        alone (a full action)."""
        for ally in self._by_side[fighter.side]:
            if ally is fighter or abs(ally.x - fighter.x) > MELEE_REACH_M:
                continue
            for effect in ally.effects:
                if not isinstance(effect, ESCAPABLE):
                    continue
                if isinstance(effect, Asphyxiating) and not effect.failed:
                    continue  # still holding its breath: no hurry
                if effect.escape == "none" or not ally.able:  # it cannot get out alone
                    effect.end("rescued")
                    if self.log is not None:
                        self.emit("rescued", actor=fighter.name, target=ally.name)
                    return True
        return False

    def _should_run(self, fighter: Fighter, target: Fighter, budget: int, moves: int,
                    stop_at: float) -> bool:
        """Run (a full action, twice the movement) when one move would not reach the target:
        when it falls short of where the fighter stops, unless it ends within reach of a
        weapon the other half-action can strike with (melee reaches 2 m short of contact,
        rules §2: from 10 m a human moves 8 m and strikes rather than run 10 m)."""
        economy = self.economy
        run_cost = economy.run_cost
        if run_cost is None or budget < run_cost or moves:
            return False
        gap, movement = abs(target.x - fighter.x), self._movement(fighter)
        if gap - stop_at <= movement:
            return False
        chosen = choose_weapon(fighter, gap - movement)
        return chosen is None or chosen[1] > budget - economy.move_cost

    def _movement(self, fighter: Fighter) -> float:
        """Metres per move: a rider uses its mount's Movement."""
        mount = fighter.mounted_on
        return (mount or fighter).spec.movement

    def _move(self, fighter: Fighter, target: Fighter, stop_at: float, run: bool = False) -> bool:
        """Move (or run: twice as far) toward the target, stopping ``stop_at`` metres from it
        (its weapon's gap). False, and nothing logged, when there is no way to go."""
        gap = abs(target.x - fighter.x)
        reach = self._movement(fighter) * (2 if run else 1)
        step = min(reach, max(0.0, gap - stop_at))
        if step <= 0:
            return False
        before = fighter.x
        self.spread = True
        fighter.x += step if target.x > fighter.x else -step
        if fighter.mounted_on is not None:
            fighter.mounted_on.x = fighter.x
        if self.log is not None:
            self.emit("moved", actor=fighter.name, toward=target.name, x_before=before,
                      x_after=fighter.x, **({"run": True} if run else {}))
        return True

