"""Attack and damage: the rule system resolves a hit and rolls its damage, the engine
applies it: outnumbering, spells paid in PSY then HP, riding checks, area blasts, fire and
poison on a hit, and the HP lost (``deal_damage``), which hands a drop to ``Status``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim.engine.effects import KnockedOut, ignite, poison, throw_off
from sim.engine.morale import wounded
from sim.engine.status import Status
from sim.model import MELEE_REACH_M
from sim.rules.actors import Arm

if TYPE_CHECKING:
    from sim.engine.state import Fighter
    from sim.model import Weapon
    from sim.rules import AttackResult, CheckResult


class Combat(Status):
    """A layer of ``Battle`` (on ``Status``): attacks, checks and harm. Its state (under "Combat" in
    ``Battle.__init__``): outnumbering and the rule system's attack, damage and strike,
    bound once. It is also the ``sim.engine.effects.Host`` effects see (check, absorb, harm)."""

    def attack(self, attacker: Fighter, target: Fighter, weapon: Weapon, arm: Arm | None = None
               ) -> bool:
        """One attack: the system resolves hit and damage; the engine applies it.

        Outnumbered (d20): once ``outnumbered_at`` different enemies attacked the
        target this round, later attacks on it that round are favoured. Returns
        True when the attack ends the attacker's turn: a fumble, or a caster out cold from
        paying. A fall from the saddle loses the attack, not the turn (rules §6): the
        turn goes on with what it has left, unless the fall knocked the rider out.
        ``arm``: the weapon's Arm from the attacker's arsenal (made here when not given).
        """
        table = self.table
        surprise = attacker.side == table.surprising
        outnumbered = False
        if self._outnumbering:
            attacked_by = target.attacked_by
            if target.attacked_round != table.round:
                target.attacked_round = table.round
                attacked_by.clear()
            outnumbered = len(attacked_by) >= self._outnumbered_at
            attacked_by.add(attacker.name)
        if arm is None:  # the weapon's numbers, read in place: the turn hands its arsenal's Arm
            arm = Arm(weapon)
        bonus = 0
        if arm.psy or attacker.mounted_on is not None:
            bonus = self._before_attack(attacker, weapon)
            if bonus is None:  # the attack is lost
                return not attacker.able
        # Both sources favour the attacker, so they never cancel: no need to combine.
        advantage = 1 if surprise or outnumbered else 0
        strike = self._strike
        if strike is not None and arm.plain and not bonus:
            # Nothing logs, nothing listens to checks: attack and damage in one call.
            amount = strike(table, attacker, target, arm, advantage)
            if amount >= 0:
                self.deal_damage(target, amount, attacker, "weapon", arm.armor_piercing)
            return False
        result = self._resolve_attack(table, attacker, target, weapon, advantage)
        log = self.log
        if log is not None:  # a literal, not emit(**fields): one of the most frequent events
            event = {
                "event": "attack_resolved", "round": table.round, "t": table.t,
                "actor": attacker.name, "target": target.name, "weapon": weapon.name,
                "hit": result.hit, "surprise": surprise, "outnumbered": outnumbered,
            }
            if result.defended or result.ends_turn:
                event.update(defended=result.defended, fumble=result.ends_turn)
            log.append(event)
        if result.hit:
            if bonus:
                result = result._replace(damage_bonus=result.damage_bonus + bonus)
            if not weapon.plain:
                for victim in self._blast(attacker, target, weapon) if weapon.area else (target,):
                    self._hit(attacker, victim, weapon, result)
            else:  # a plain hit, inlined: the common case on the hot path
                amount, dice, piercing, flat = self._roll_damage(table, attacker, target, weapon,
                                                                 result)
                self.deal_damage(target, amount, attacker, "weapon", piercing, dice, flat)
        return result.ends_turn

    def _before_attack(self, attacker: Fighter, weapon: Weapon) -> int | None:
        """Pay a spell; roll riding from the saddle. The damage bonus, or None: attack lost."""
        if weapon.psy:
            self.pay_psy(attacker, weapon.psy)
            if not attacker.able:
                return None
        mount = attacker.mounted_on
        if mount is None:
            return 0
        riding = self.check(attacker, "riding")
        if riding.degree == "critical_failure":
            throw_off(self, attacker, "fell from the saddle", check=False)
            return None
        if not riding.success or not mount.able:  # a stunned horse lends no weight
            return 0
        return self.rules.mount_bonus(mount)

    def _blast(self, attacker: Fighter, target: Fighter, weapon: Weapon) -> list[Fighter]:
        """Who an area weapon's hit strikes: the target and every enemy within 2 m of it."""
        near = [e for e in self.able_enemies(attacker)
                if e is not target and abs(e.x - target.x) <= MELEE_REACH_M]
        return [target, *near]

    def _hit(self, attacker: Fighter, victim: Fighter, weapon: Weapon, result: AttackResult) -> None:
        """Damage, then what the weapon carries: fire, poison."""
        damage = self._roll_damage(self.table, attacker, victim, weapon, result)
        kind = "spell" if weapon.psy else "weapon"
        self.deal_damage(victim, damage.amount, attacker, kind, damage.armor_piercing, damage.dice,
                         damage.bonus)
        if weapon.fire or weapon.poison:
            if weapon.fire:
                ignite(self, victim, attacker)
            if weapon.poison:
                poison(self, victim, attacker)

    def check(self, who: Fighter, what: str, modifier: int = 0) -> CheckResult:
        """A check of the battle's rule system (``modifier`` in percent)."""
        return self.rules.check(self.table, who, what, modifier)

    def absorb(self, target: Fighter, amount: int) -> int:
        """What armor leaves of ``amount``, as the battle's rule system says."""
        return self.rules.absorb(target, amount)

    def pay_psy(self, caster: Fighter, cost: int) -> None:
        """A spell costs PSY; what PSY cannot pay is paid in HP that cannot be healed today."""
        paid = min(caster.psy, cost)
        if paid:
            caster.psy -= paid
            if self.log is not None:
                self.emit("resource_spent", actor=caster.name, resource="psy", amount=paid,
                          left=caster.psy)
        owed = cost - paid
        if owed:  # kind spell, marked cost: not the harm a spell does, the price of casting it
            caster.unhealable += owed
            self.deal_damage(caster, owed, caster, "spell", True, (), cost=True)

    def deal_damage(
        self,
        target: Fighter,
        amount: int,
        source: Fighter | None,
        kind: str,
        armor_piercing: bool = False,
        dice: tuple[int, ...] = (),
        bonus: int = 0,
        cost: bool = False,
    ) -> None:
        """Take ``amount`` HP from the target (never below 0); at 0 it drops. ``dice`` and
        ``bonus`` (the flat part, before armor) are only logged: the narration shows them;
        ``cost`` marks HP a caster pays for its spell (logged ``cost: true``)."""
        before = target.hp
        target.hp = after = before - amount if before > amount else 0
        log = self.log
        if log is not None:
            log.append({
                "event": "damage_dealt", "round": self.table.round, "t": self.table.t,
                "target": target.name, "amount": amount,
                "source": None if source is None else source.name, "kind": kind,
                "armor_piercing": armor_piercing, "hp_before": before, "hp_after": after,
                "dice": list(dice), "bonus": bonus,
            })
            if cost:  # the HP a caster pays for a spell (rules §3), told apart from a spell's harm
                log[-1]["cost"] = True
        if before > after and self.morale_on and not cost:
            # rules §4: a wound of k HP lost costs floor(k / 2) tokens, the blow that drops it
            # included. HP paid for a spell are a price, not a hit: no wound.
            wounded(self.table, target, before - after, self.scenario.options.wound_divisor)
        if before > 0 and after == 0 and target.present:
            self._drop(target, kind, source)
        elif amount > 0 and self._wounds:
            rounds = self.rules.after_damage(self.table, target, amount)
            if rounds:  # a serious wound (d100): out for that many of its turns
                KnockedOut(self, target, rounds, kind, source).start()

