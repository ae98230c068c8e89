"""Playing adventuring days (rules §7): encounters chained with rests, one seed per fight.

``run_day`` plays a loaded ``Day`` step by step: each fight is a ``Battle`` whose
party fighters receive what each ``Member`` carries, each rest applies ``rest``
per member. The day ends when the party does not win a fight (a TPK, a rout, or
a draw); later steps are not reached. ``run_any`` plays a scenario or a day.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any, NamedTuple

import attrs

from sim import __version__
from sim.day.file import OPPOSITION, Day, Rest
from sim.day.rest import Member, rest
from sim.day.revive import beyond_rest, revive_downed
from sim.engine import Battle, run_battle
from sim.engine.outcome import FighterRow
from sim.engine.state import ACTIVE, BROKEN, DEAD, UNCONSCIOUS, Fighter
from sim.model import Scenario
from sim.rules.d100 import load_fatigue
from sim.tally.party import went_down

SCHEMA = 1


def step_seed(day_seed: int, encounter: int) -> int:
    """The seed of the day's ``encounter``-th fight: the day's own for the first (so a day of
    one encounter plays exactly that scenario's battle), then SHA-256 of (seed, k)."""
    if encounter == 0:
        return day_seed
    digest = hashlib.sha256(f"combat-sim/day/{day_seed}/{encounter}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


class StepResult(NamedTuple):
    step: int
    reached: bool
    won: bool
    winner: str | None
    rounds: int
    any_down: bool
    any_death: bool
    hp_start: int  # the party's HP (the living members', mounts left out) as the step begins
    heroism_start: int  # their heroism dice left, as the step begins
    psy_start: int  # their PSY left, as the step begins
    # What else the party has left as a fight begins (0 for a rest or a step not reached):
    potions_start: int = 0  # items (potions) the living members carry
    destiny_start: int = 0  # the day's destiny points
    fatigue_start: int = 0  # the living members' fatigue
    down_start: int = 0  # members dead, unconscious or broken as it begins


class DayOutcome(NamedTuple):
    seed: int
    winner: str | None  # the party if it won every fight, OPPOSITION if it lost one, None: a draw
    rounds: int
    rows: tuple[FighterRow, ...]  # party combatants at the day's end, in the day's order
    steps: tuple[StepResult, ...]
    survived: bool  # at least one party member (mounts aside) alive when the day ends
    completed: bool  # every step reached and every fight won


def roster(day: Day) -> list[Member]:
    """The day's party as it starts the day: one ``Member`` per combatant, mounts included."""
    party = next(s for s in day.encounters[0].scenario.sides if s.party)
    return [Member.of(c, day.rules, party.tactics) for c in day.members]


def _fighting(scenario: Scenario, party: str, dead: set[str]) -> Scenario:
    """The encounter without the party's dead (a rider whose mount died goes on foot), nor
    in its hazards: a dead member named in a zone was looked up there and crashed the day
    (KeyError; the timeline passes over whoever is not on the field)."""
    if not dead:
        return scenario
    sides = []
    for side in scenario.sides:
        if side.name == party:
            members = tuple(attrs.evolve(c, mount=None) if c.mount in dead else c
                            for c in side.members if c.name not in dead)
            side = attrs.evolve(side, members=members)
        sides.append(side)
    hazards = tuple(attrs.evolve(h, members=tuple(m for m in h.members if m not in dead))
                    for h in scenario.hazards)
    return attrs.evolve(scenario, sides=tuple(sides), hazards=hazards)


def run_day(day: Day, seed: int, log: bool = False, batch: dict | None = None,
            sink: list[dict] | None = None) -> tuple[DayOutcome, list[dict]]:
    """Play one day; its outcome and (with ``log``) one event log for the whole day, appended
    to ``sink`` when one is given (sim.events.StreamedLog, CappedLog)."""
    events: list[dict] | None = (sink if sink is not None else []) if log else None
    members = roster(day)
    by_name = {m.name: m for m in members}
    counted = {c.name for c in day.members if c.rider is None}
    rest_rng: random.Random | None = None  # made at the first rest or revival (seeding costs)
    destiny = day.destiny_points
    results: list[StepResult] = []
    rounds = 0
    winner: str | None = day.party
    encounters = 0
    if events is not None:
        events.append({"event": "day_started", "round": 0, "t": 0.0, "schema": SCHEMA, "seed": seed,
                       "rules": day.rules, "day": day.name, "day_path": day.path,
                       "day_path_resolved": day.abs_path,
                       "version": __version__,
                       "day_sha256": day.sha256, "party": [m.name for m in members],
                       "steps": len(day.steps),
                       **({"bestiary": list(day.bestiary)} if day.bestiary else {}),
                       **({"overrides": list(day.overrides)} if day.overrides else {}),
                       **({"batch": batch} if batch else {})})
    def carry(fighter: Fighter) -> None:
        """What a party member carries into a fight; before its first, it is as its stat block
        says, bar the tokens of the rests taken before it."""
        if fighter.party:
            by_name[fighter.name].hand_over(fighter)

    ended = False
    # d100, 2d10, d10: a member at 0 HP is carried along until magic raises it (rules §7).
    carried = day.rules != "d20"
    last_fight = max(s.step for s in day.encounters)
    for step in day.steps:
        if ended:
            results.append(StepResult(step.step, False, False, None, 0, False, False, 0, 0, 0))
            continue
        if isinstance(step, Rest):
            if rest_rng is None:
                rest_rng = random.Random(step_seed(seed, -1))
            for member in members:  # (one not yet in a fight takes the rest's morale token)
                if member.alive:
                    fields = rest(member, step.kind, step.hours, rest_rng, events is not None,
                                  day.unhealable_recovery == "rest_dice", day.rest_revives)
                    if fields is not None:
                        events.append({"event": "rested", "round": 0, "t": 0.0, "step": step.step,
                                       "actor": member.name, **fields})
            results.append(StepResult(step.step, True, False, None, 0, False, False, 0, 0, 0))
            continue
        # The dead, the gone and (d100, 2d10, d10) those at 0 HP no magic raised stay out.
        dead = {m.name for m in members if not m.alive or (carried and beyond_rest(m))}
        entered_down = {m.name for m in members if m.status in (BROKEN, UNCONSCIOUS)}
        standing = [m for m in members if m.alive and m.name in counted and m.max_hp is not None]
        hp_start = sum(m.hp for m in standing)
        heroism_start, psy_start = sum(m.heroism for m in standing), sum(m.psy for m in standing)
        fatigue_start = sum(m.fatigue for m in standing)
        potions_start = sum(sum((m.items or {}).values()) for m in standing)
        down_start = sum(1 for m in members if m.name in counted and m.status != ACTIVE)
        scenario = _fighting(step.scenario, day.party, dead)
        if events is not None:
            out = [m.name for m in members if m.alive and m.name in dead]
            events.append({"event": "encounter_started", "round": 0, "t": 0.0, "step": step.step,
                           "name": step.name, **({"carried": out} if out else {})})
        # Its events go straight into the day's log (not gathered, then copied at its end).
        battle = Battle(scenario, step_seed(seed, encounters), log, carry=carry, sink=events)
        battle.destiny_left = destiny_start = destiny
        outcome = battle.run()
        if encounters == 0:  # fresh: what the first fight rolled and gave them
            fresh = [f for f in battle.fighters if f.party and f.name in counted]
            hp_start = sum(f.max_hp for f in fresh)
            heroism_start = sum(f.spec.heroism for f in fresh)
            psy_start = sum(f.spec.psy for f in fresh)
            potions_start = sum(item.count for f in fresh for item in f.spec.items)
            # d100 starts a fighter tired by a load over its carrying capacity (sim.rules.d100)
            fatigue_start = sum(load_fatigue(f.spec) for f in fresh) if day.rules == "d100" else 0
        encounters += 1
        destiny = battle.destiny_left
        won = outcome.winner == day.party
        any_down = any_death = False
        for fighter, row in zip(battle.fighters, outcome.rows, strict=True):
            if not fighter.party:
                continue
            member = by_name[fighter.name]
            member.take_back(fighter)
            if row[3]:
                member.ever_down = True
            if fighter.name in counted and fighter.name not in entered_down:
                any_down = any_down or went_down(row)
                any_death = any_death or row[1] == DEAD
        rounds += outcome.rounds
        if events is not None:
            events.append({"event": "encounter_ended", "round": outcome.rounds, "t": battle.table.t,
                           "step": step.step, "winner": outcome.winner, "rounds": outcome.rounds})
        results.append(StepResult(step.step, True, won, outcome.winner, outcome.rounds, any_down,
                                  any_death, hp_start, heroism_start, psy_start, potions_start,
                                  destiny_start, fatigue_start, down_start))
        if not won:
            ended = True
            winner = None if outcome.winner is None else OPPOSITION
        elif carried and step.step < last_fight:
            if rest_rng is None:
                rest_rng = random.Random(step_seed(seed, -1))
            for fields in revive_downed(members, counted, rest_rng, events is not None):
                events.append({"event": "revived", "round": 0, "t": 0.0,
                               "step": step.step, **fields})
    party_now = [m for m in members if m.name in counted]
    survived = any(m.status != DEAD for m in party_now)
    rows = tuple((m.hp, m.status, m.cause if m.status == DEAD else None,
                  m.status != DEAD and m.ever_down, m.morale_state, tuple(sorted(m.learned)),
                  m.items_used)
                 for m in members)
    outcome = DayOutcome(seed, winner, rounds, rows, tuple(results), survived, winner == day.party)
    if events is not None:
        events.append({"event": "day_ended", "round": 0, "t": 0.0, "winner": winner,
                       "completed": outcome.completed, "survived": survived, "rounds": rounds,
                       "dead": [m.name for m in members if m.status == DEAD],
                       "survivors": [m.name for m in members if m.status != DEAD]})
    return outcome, events or []


def run_any(subject: Scenario | Day, seed: int, log: bool = False, batch: dict | None = None,
            sink: list[dict] | None = None) -> tuple[Any, list[dict]]:
    """Play a scenario's battle or a whole day from its seed; (outcome, events), the events
    appended to ``sink`` when one is given."""
    if isinstance(subject, Day):
        return run_day(subject, seed, log, batch, sink)
    return run_battle(subject, seed, log, batch, sink)
