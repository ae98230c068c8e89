"""Ongoing effects as SimPy processes that tick at the start of their owner's turns, and the
one-off harms of seed 002 (fire, poison, water and smoke, explosions, falls, throws).

An effect acts on the battle only through ``Host``: the table (dice, log), the SimPy
environment, a check, and the engine's ways to harm, knock out and wake a fighter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Protocol

from sim.dice import roll_die
from sim.engine.state import UNCONSCIOUS
from sim.rules import flat_part

if TYPE_CHECKING:
    from collections.abc import Generator

    import simpy

    from sim.dice import Dice
    from sim.engine.state import Fighter
    from sim.engine.table import Table
    from sim.rules import CheckResult

FALL_DIE_M = 3  # a fall deals 1d6 per full 3 m (rules §6)


class Host(Protocol):
    """What effects need of the battle they run in (``sim.engine.Battle`` is one)."""

    table: Table
    env: simpy.Environment
    ended: bool

    def check(self, who: Fighter, what: str, modifier: int = 0) -> CheckResult:
        """A check of the battle's rule system."""
        ...

    def absorb(self, target: Fighter, amount: int) -> int:
        """What armor leaves of ``amount``, as the rule system says."""
        ...

    def deal_damage(self, target: Fighter, amount: int, source: Fighter | None, kind: str,
                    armor_piercing: bool = False, dice: tuple[int, ...] = (), bonus: int = 0,
                    cost: bool = False) -> None:
        """Take HP; at 0 the target drops."""
        ...

    def set_unconscious(self, fighter: Fighter, cause: str, source: Fighter | None = None) -> None:
        """Knocked out with HP left (a serious wound) by ``source``'s harm (None: no one's)."""
        ...

    def wake(self, fighter: Fighter) -> None:
        """Back in the fight."""
        ...


class OngoingEffect:
    """An effect owned by one fighter: started, ticked each of its turns, ended.

    Subclasses set ``name`` (the ``effect`` field of the log) and implement
    ``tick``. The tick runs at the start of the owner's turn, before it acts,
    even when it is unconscious (rules §2: a burning body keeps burning).
    """

    name: ClassVar[str] = "effect"

    def __init__(self, host: Host, owner: Fighter) -> None:
        self.host = host
        self.owner = owner
        self.active = False
        self.ticks = 0

    def start(self, **fields: object) -> None:
        """Attach to the owner, log ``effect_started`` and begin waiting for its turns."""
        self.active = True
        self.owner.effects.append(self)
        if self.host.table.log is not None:
            self.host.table.emit("effect_started", target=self.owner.name, effect=self.name, **fields)
        self.host.env.process(self._run())

    def end(self, reason: str) -> None:
        """Detach from the owner and log ``effect_ended`` with why it ended."""
        if not self.active:
            return
        self.active = False
        self.owner.effects.remove(self)
        if self.host.table.log is not None:
            self.host.table.emit("effect_ended", target=self.owner.name, effect=self.name, reason=reason)

    def _run(self) -> Generator[simpy.Event, object, None]:
        while self.active:
            yield self.owner.next_turn(self.host.env)
            if self.active and self.owner.present and not self.host.ended:
                self.ticks += 1
                if self.host.table.log is not None:  # every tick is logged, even a quiet one
                    self.host.table.emit("effect_ticked", target=self.owner.name, effect=self.name,
                                     tick=self.ticks)
                self.tick()

    def tick(self) -> None:
        """One tick at the start of the owner's turn; subclasses say what it does."""
        raise NotImplementedError


# -- the effects of seed 002 (rules §6); damage from these is armor-piercing ---------------


def has_effect(fighter: Fighter, name: str) -> bool:
    """Whether one of the fighter's running effects has this name."""
    return any(effect.name == name for effect in fighter.effects)


class Burning(OngoingEffect):
    """On fire: 1d6 at the start of each turn, then a physique check puts it out."""

    name = "burning"

    def tick(self) -> None:
        host, owner = self.host, self.owner
        amount = roll_die(host.table.rng, 6)
        before = owner.hp
        host.deal_damage(owner, amount, None, "fire", True, (amount,))
        owner.fire_damage += before - owner.hp  # HP lost, not dice rolled at 0 HP (rules §6)
        if not owner.social_burnt and owner.fire_damage * 2 > owner.max_hp:
            # Past half its maximum HP in fire damage this battle: 1d10 social, once a battle
            # (a day's next fire can take more: what was lost carries, rules §7).
            owner.social_burnt = True
            loss = roll_die(host.table.rng, 10)
            owner.social_lost += loss
            if host.table.log is not None:
                host.table.emit("characteristic_lost", target=owner.name, characteristic="social",
                            amount=loss, cause="fire")
        # "takes 1d6, then rolls physique": even unconscious, as drowning and poison roll.
        if self.active and owner.present and host.check(owner, "physique").success:
            self.end("put out")


class Asphyxiating(OngoingEffect):
    """In water or smoke: on the k-th exposed turn a physique check at -min(10(k-1), 50);
    from the first failure on, 1d6 every turn and no more checks, until it leaves
    the zone (a move, when ``escape`` is move) or an ally rescues it (a full action)."""

    name = "asphyxiating"

    def __init__(self, host: Host, owner: Fighter, kind: str, escape: str) -> None:
        super().__init__(host, owner)
        self.kind = kind  # water or smoke
        self.escape = escape
        self.failed = False

    def tick(self) -> None:
        host, owner = self.host, self.owner
        if not self.failed:
            modifier = -min(10 * (self.ticks - 1), 50)
            if host.check(owner, "physique", modifier).success:
                return
            self.failed = True
        amount = roll_die(host.table.rng, 6)
        # Kind drowning in water and smoke alike: the event log's one kind for this rule (rules §6,
        # "asphyxia / drowning"); effect_started says which zone it was.
        host.deal_damage(owner, amount, None, "drowning", True, (amount,))


class Poisoned(OngoingEffect):
    """Poisoned: a force check at the start of each turn; success beats it, failure 1d4."""

    name = "poisoned"

    def tick(self) -> None:
        host, owner = self.host, self.owner
        if host.check(owner, "force").success:
            self.end("beaten")
            return
        amount = roll_die(host.table.rng, 4)
        host.deal_damage(owner, amount, None, "poison", True, (amount,))


class InFire(OngoingEffect):
    """Standing in a burning zone: touched by fire at the start of each turn until it leaves."""

    name = "in_fire"

    def __init__(self, host: Host, owner: Fighter, escape: str) -> None:
        super().__init__(host, owner)
        self.escape = escape

    def tick(self) -> None:
        ignite(self.host, self.owner, None)


class KnockedOut(OngoingEffect):
    """A serious wound: unconscious for 1d4 rounds, that is 1d4 of its turns, then weakened
    (-20) for the battle. A wound dealt by one of its own effects ticking at the start of its
    turn (fire, poison, water) costs that turn: it is the first of the 1d4."""

    name = "unconscious"

    def __init__(self, host: Host, owner: Fighter, rounds: int, cause: str,
                 source: Fighter | None = None) -> None:
        super().__init__(host, owner)
        self.rounds = rounds
        self.cause = cause
        self.source = source  # who dealt the wound: the knock-out is its kill (rules §4)
        # The tick (of its turns to come) at which it wakes: one sooner when the turn now
        # starting is already lost to the wound.
        self.wakes_at = rounds if host.table.ticking is owner else rounds + 1

    def start(self, **fields: object) -> None:
        self.host.set_unconscious(self.owner, self.cause, self.source)
        super().start(rounds=self.rounds, **fields)

    def tick(self) -> None:
        if self.ticks < self.wakes_at:
            return
        self.end("woke up")
        if self.owner.hp > 0 and self.owner.status == UNCONSCIOUS:
            self.weaken()

    def weaken(self) -> None:
        """Awake again after a serious wound: weakened (-20) for the rest of the battle."""
        host, owner = self.host, self.owner
        host.wake(owner)
        owner.weakened = True
        if host.table.log is not None:
            host.table.emit("effect_started", target=owner.name, effect="weakened")


ESCAPABLE = (Asphyxiating, InFire)


def ignite(host: Host, target: Fighter, source: Fighter | None) -> None:
    """Touched by fire: a physique check; failure sets it burning (once at a time)."""
    if not target.present or has_effect(target, Burning.name):
        return
    if not host.check(target, "physique").success:
        Burning(host, target).start(source=None if source is None else source.name)


def poison(host: Host, target: Fighter, source: Fighter | None) -> None:
    """Poison on contact, every hit (rules §6: "hit by a poison weapon: a force check"): success
    beats this dose; failure deals 1d4 and the venom lingers. A victim already poisoned takes
    the new dose's 1d4 on a failure; its one ``poisoned`` effect goes on checking each turn."""
    if not target.present:
        return
    if host.check(target, "force").success:
        return
    amount = roll_die(host.table.rng, 4)
    host.deal_damage(target, amount, source, "poison", True, (amount,))
    if target.present and not has_effect(target, Poisoned.name):
        Poisoned(host, target).start(source=None if source is None else source.name)


def expose(host: Host, target: Fighter, kind: str, escape: str) -> None:
    """Put a fighter in water or smoke (or a burning zone) until it gets out."""
    if not target.present:
        return
    if kind == "fire":
        if not has_effect(target, InFire.name):
            InFire(host, target, escape).start(escape=escape)
    elif not has_effect(target, Asphyxiating.name):
        Asphyxiating(host, target, kind, escape).start(kind=kind, escape=escape)


def explode(host: Host, targets: list[Fighter], damage: Dice) -> None:
    """An explosion: the damage dice for each fighter in the blast; armor applies as the
    system applies it (d20: not at all, it only feeds the defense roll)."""
    for target in targets:
        if target.present:
            raw, dice = damage.roll_dice(host.table.rng)
            bonus = flat_part(host.table, raw, dice)
            host.deal_damage(target, host.absorb(target, raw), None, "explosion", False,
                               dice, bonus)


def fall(host: Host, target: Fighter, height: float) -> None:
    """A fall: 1d6 per full 3 m; a physique check cancels 1d6 when under 6 m."""
    if not target.present:
        return
    dice_count = int(height // FALL_DIE_M)
    if dice_count > 0 and height < 6 and host.check(target, "physique").success:
        dice_count -= 1
    rolls = tuple(roll_die(host.table.rng, 6) for _ in range(dice_count))
    host.deal_damage(target, sum(rolls), None, "fall", True, rolls)


def throw_off(host: Host, rider: Fighter, reason: str, check: bool, falls: bool = False) -> None:
    """Off the saddle: 1d10 armor-piercing (unless a riding check, when asked, succeeds).
    ``falls``: a rider that is down falls too (``unconscious_rider: falls``)."""
    mount = rider.mounted_on
    if mount is None:
        return
    # A rider already down just slides off (the Convention): it rolls nothing.
    hurt = (rider.able or falls) and (not check or not host.check(rider, "riding").success)
    mount.ridden_by = None
    rider.mounted_on = None
    rider.prone = True
    if host.table.log is not None:
        host.table.emit("effect_ended", target=rider.name, effect="mounted", reason=reason)
    if hurt:
        amount = roll_die(host.table.rng, 10)
        host.deal_damage(rider, amount, None, "fall", True, (amount,))
