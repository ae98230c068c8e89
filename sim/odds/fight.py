"""A small fight as an absorbing Markov chain, solved by carrying its exact law round by round.

The state is every fighter's ``Local`` (HP and what a rule carries from turn to turn), the
attackers each has had this round (d20's outnumbered rule) and each side's focus target.
Each round the party rolls group initiative (two orders, rules §2); after every turn a state
with at most one side able is absorbed: the side wins, the others' members die (rules §5).
States whose probability falls below ``EPSILON`` are dropped and counted in ``residual``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator

import attrs

from sim.model import Scenario, Weapon
from sim.odds import rolls
from sim.odds.morale import MoraleRules, checked, gain
from sim.odds.roster import (
    DOWN,
    FAT,
    HP,
    KO,
    MAX,
    SKIP,
    WEAK,
    Local,
    Profile,
    able,
    attack_skill,
    characteristic,
    d100_score,
    initiative_die,
    morale_on,
    profiles,
    start,
)
from sim.odds.strikes import Rules, d100_target, strike

EPSILON = 1e-15  # a state less likely than this is dropped (its mass kept in ``residual``)
DONE = 1e-13  # stop once the fights still going weigh less than this (also ``residual``)
MAX_STATES = 100_000  # live states at any turn: the bound of ``sim odds``
MAX_HP_PRODUCT = 2_000_000  # the product of (maximum HP + 1) over the fighters, checked first
MAX_FIGHTERS = 6

State = tuple[tuple[Local, ...], tuple[int, ...], tuple[int, ...]]


class TooBig(Exception):
    """The fight has more states than the bound."""


@attrs.define
class Result:
    """The exact outcome of a fight: the law of who wins, of the party's fate and of rounds."""

    sides: tuple[str, ...]
    party: str | None
    wins: dict[str, float]
    draw: float
    rounds_mean: float
    party_downs: list[float]  # P(k party members went down)
    party_deaths: list[float]
    down: dict[str, float]
    death: dict[str, float]
    residual: float = 0.0
    peak_states: int = 0


class Solver:
    """Solve one scenario (already checked by ``sim.odds.support``)."""

    def __init__(self, scenario: Scenario, max_states: int = MAX_STATES,
                 should_stop: Callable[[], bool] | None = None) -> None:
        opts = scenario.options
        self.scenario = scenario
        # Asked once a turn: a solve that must give way (a page's job cancelled, its time up)
        # ends as one too big would.
        self.should_stop = should_stop
        self.fighters: tuple[Profile, ...] = profiles(scenario)
        self.rules = Rules(scenario.rules, opts, MoraleRules(
            morale_on(scenario), opts.wound_divisor, opts.despair_disadvantage, opts.despair_again))
        self.max_states = max_states
        self.side_names = tuple(s.name for s in scenario.sides)
        self.party = next((i for i, s in enumerate(scenario.sides) if s.party), None)
        self.policies = tuple(p.policy for p in self.fighters)
        self.enemies = tuple(tuple(q.index for q in self.fighters if q.side != p.side) for p in self.fighters)
        self.allies = tuple(tuple(q.index for q in self.fighters if q.side == p.side and q is not p)
                            for p in self.fighters)
        at = opts.outnumbered_at
        self.outnumbering = scenario.rules == "d20" and any(len(e) >= at for e in self.enemies)
        self.focusing = "focus" in self.policies
        self._turns: dict[tuple[State, int, bool], list[tuple[float, State, bool]]] = {}
        self._strikes: dict[tuple, list[tuple[float, Local, Local, int, bool]]] = {}

    # --- the rounds ---------------------------------------------------------------------------

    def solve(self) -> Result:
        n = len(self.fighters)
        masks = (0,) * n if self.outnumbering else ()
        focus = (-1,) * len(self.side_names) if self.focusing else ()
        dist: dict[State, float] = {(locals_, masks, focus): p
                                    for locals_, p in start(self.scenario, self.fighters).items()}
        tally = _Tally(self)
        for state, p in list(dist.items()):  # a side with nobody able from the start
            if self._winner(state) is not False:
                tally.add(state, p, 0)
                del dist[state]
        for rnd in range(1, self.scenario.max_rounds + 1):
            dist = self._round(dist, rnd, tally)
            kept = {s: p for s, p in dist.items() if p >= EPSILON}
            tally.residual += sum(dist.values()) - sum(kept.values())
            dist = kept
            if sum(dist.values()) < DONE:
                tally.residual += sum(dist.values())
                dist = {}
                break
        for state, p in dist.items():
            tally.add(state, p, self.scenario.max_rounds, drawn=True)
        return tally.result()

    def _round(self, dist: dict[State, float], rnd: int, tally: _Tally) -> dict[State, float]:
        if self.outnumbering:  # a new round: nobody has been attacked yet
            dist = _merge((((s[0], (0,) * len(s[1]), s[2]), p) for s, p in dist.items()))
        surprise = self.scenario.surprise
        if rnd == 1 and surprise is not None:
            side = self.side_names.index(surprise.side)
            order = [p.index for p in self.fighters if p.side == side]
            return self._turns_in(dist, order, rnd, tally, True)
        rolling = self.party if self.party is not None else 0
        first = [p.index for p in self.fighters if p.side == rolling]
        others = [p.index for p in self.fighters if p.side != rolling]
        ahead: dict[State, float] = {}
        behind: dict[State, float] = {}
        for state, p in dist.items():
            die = initiative_die(self.fighters, state[0], rolling)
            win = (die - 3) / die  # 4 or more on 1d6 (1d8)
            ahead[state], behind[state] = p * win, p * (1 - win)
        out = self._turns_in(ahead, first + others, rnd, tally, False)
        for state, p in self._turns_in(behind, others + first, rnd, tally, False).items():
            out[state] = out.get(state, 0.0) + p
        return out

    def _turns_in(self, dist: dict[State, float], order: list[int], rnd: int, tally: _Tally,
                  surprise: bool) -> dict[State, float]:
        for i in order:
            nxt: dict[State, float] = defaultdict(float)
            ended: dict[State, float] = defaultdict(float)
            for state, p in dist.items():
                for q, after, going in self._turn(state, i, surprise):
                    (nxt if going else ended)[after] += p * q
            for state, p in ended.items():
                tally.add(state, p, rnd)
            dist = nxt
            tally.peak = max(tally.peak, len(dist))
            if len(dist) > self.max_states or (self.should_stop is not None and self.should_stop()):
                raise TooBig(len(dist))
        return dist

    def _winner(self, state: State) -> int | bool | None:
        """The winning side's index, None when nobody is left able, False while it goes on."""
        sides = {self.fighters[i].side for i, local in enumerate(state[0]) if able(local)}
        if len(sides) > 1:
            return False
        return next(iter(sides)) if sides else None

    # --- one turn -----------------------------------------------------------------------------

    def _turn(self, state: State, i: int, surprise: bool) -> list[tuple[float, State, bool]]:
        """The law of fighter i's turn from ``state``: (p, state after, the fight goes on)."""
        key = (state, i, surprise)
        found = self._turns.get(key)
        if found is None:
            found = [(p, after, self._winner(after) is False)
                     for p, after in _merged(self._play_turn(state, i, surprise))]
            self._turns[key] = found
        return found

    def _play_turn(self, state: State, i: int, surprise: bool) -> list[tuple[float, State]]:
        local = state[0][i]
        if local[HP] == 0:
            return [(1.0, state)]
        if local[KO] > 1:  # knocked out by a serious wound: it sleeps through this turn
            return [(1.0, _set(state, i, _with(local, KO, local[KO] - 1)))]
        if local[KO] == 1:  # its 1d4 turns slept, it wakes as this turn begins, and acts
            local = _with(local, KO, 0)
            state = _set(state, i, local)
        if local[SKIP]:  # 2d10: a disaster cost it this turn
            return [(1.0, _set(state, i, _with(local, SKIP, 0)))]
        weapon = self._weapon(i, local)
        if weapon is None:
            return [(1.0, state)]
        attacks = self._attacks(weapon)
        frontier, done = [(1.0, state)], []
        for _ in range(attacks):
            nxt = []
            for p, st in frontier:
                targets = self._targets(st, i)
                if not targets:
                    done.append((p, st))
                    continue
                for q, t, st2 in targets:
                    for r, after, ends in self._attack(st2, i, t, weapon, surprise):
                        (done if ends else nxt).append((p * q * r, after))
            frontier = nxt
        return done + frontier

    def _attacks(self, weapon: Weapon) -> int:
        """d100: two half-actions a turn, each a one-handed attack (capped by
        ``attacks_per_turn``); one attack otherwise (rules §2)."""
        if self.rules.system != "d100" or not weapon.half_action:
            return 1
        cap = self.scenario.options.attacks_per_turn
        return 2 if cap is None else min(2, cap)

    def _weapon(self, i: int, local: Local) -> Weapon | None:
        """The first weapon of its order it can use: in d100 a shot (a ranged weapon, thrown or
        a bow) whose score fatigue and weakness brought to 0 or below is hopeless (docs,
        conventions): one at 0 before either is still shot."""
        p = self.fighters[i]
        for weapon in p.weapons:
            hopeless = (self.rules.system == "d100" and weapon.range is not None
                        and (local[FAT] > 0 or local[WEAK] > 0)
                        and d100_target(d100_score(p.spec, attack_skill(weapon)), local) <= 0)
            if not hopeless:
                return weapon
        return None

    def _targets(self, state: State, i: int) -> list[tuple[float, int, State]]:
        """(probability, target, state) by the fighter's target policy among able enemies."""
        locals_ = state[0]
        foes = [j for j in self.enemies[i] if able(locals_[j])]
        if not foes:
            return []
        policy = self.policies[i]
        if policy == "random":
            return [(1 / len(foes), j, state) for j in foes]
        if policy == "strongest":
            return [(1.0, max(foes, key=lambda j: (locals_[j][HP], -j)), state)]
        weakest = min(foes, key=lambda j: (locals_[j][HP], j))
        if policy == "weakest":
            return [(1.0, weakest, state)]
        side = self.fighters[i].side
        shared = state[2][side]
        if shared in foes:
            return [(1.0, shared, state)]
        focus = (*state[2][:side], weakest, *state[2][side + 1:])
        return [(1.0, weakest, (state[0], state[1], focus))]

    def _attack(self, state: State, i: int, t: int, weapon: Weapon, surprise: bool
                ) -> Iterator[tuple[float, State, bool]]:
        locals_, masks, focus = state
        outnumbered = False
        if self.outnumbering:
            outnumbered = bin(masks[t] & ~(1 << i)).count("1") >= self.scenario.options.outnumbered_at
            masks = (*masks[:t], masks[t] | (1 << i), *masks[t + 1:])
        for p, al, tl, dmg, ends in self._strike(i, t, weapon, locals_[i], locals_[t], surprise, outnumbered):
            after = list(locals_)
            after[i], after[t] = al, tl
            for q, landed in self._land(after, i, t, dmg):
                yield p * q, (landed, masks, focus), ends

    def _strike(self, i: int, t: int, weapon: Weapon, a_loc: Local, t_loc: Local, surprise: bool,
                outnumbered: bool) -> list[tuple[float, Local, Local, int, bool]]:
        """``strikes.strike``, memoised: the same two fighters' states recur in many states."""
        key = (i, t, weapon.name, a_loc, t_loc, surprise, outnumbered)
        found = self._strikes.get(key)
        if found is None:
            found = [(p, al, tl, dmg, ends) for p, al, tl, dmg, ends, _hit, _crit in strike(
                self.rules, self.fighters[i], self.fighters[t], weapon, a_loc, t_loc, surprise, outnumbered)]
            self._strikes[key] = found
        return found

    def _land(self, locals_: list[Local], i: int, t: int, dmg: int
              ) -> list[tuple[float, tuple[Local, ...]]]:
        """The damage lands: HP, the wound's morale cost, a fall or a serious wound (d100),
        and the morale of a fall: -4 to each conscious ally, +2 to the one who struck."""
        tl = locals_[t]
        lost = min(dmg, tl[HP])
        if lost == 0:
            return [(1.0, tuple(locals_))]
        tl = gain(_with(tl, HP, tl[HP] - lost), -(lost // self.rules.morale.wound_divisor))
        if tl[HP] == 0:
            locals_[t] = _with(tl, DOWN, 1)
            return [(1.0, self._fallen(locals_, i, t))]
        if self.rules.system != "d100" or 2 * dmg < tl[MAX]:
            locals_[t] = tl
            return [(1.0, tuple(locals_))]
        out = []  # rules §3, d100: a serious wound; physique, or out for 1d4 rounds, then weakened
        score = d100_target(characteristic(self.fighters[t].spec, "physique", 50), tl)
        for p, roll, tl2 in checked(lambda x: rolls.d100(score, x), 0, tl, self.rules.morale):
            if roll.success:
                locals_[t] = tl2
                out.append((p, tuple(locals_)))
                continue
            for rounds in range(1, 5):  # KO = turns to sleep + 1: it wakes as the next begins
                locals_[t] = (*tl2[:WEAK], 1, rounds + 1, *tl2[KO + 1:DOWN], 1)
                out.append((p / 4, self._fallen(locals_, i, t)))
        return out

    def _fallen(self, locals_: list[Local], i: int, t: int) -> tuple[Local, ...]:
        after = list(locals_)
        for j in self.allies[t]:
            if able(after[j]):
                after[j] = gain(after[j], -4)
        after[i] = gain(after[i], 2)
        return tuple(after)


class _Tally:
    """The absorbed probability, counted as the summary counts battles."""

    def __init__(self, solver: Solver) -> None:
        self.solver = solver
        self.wins: dict[int | None, float] = defaultdict(float)
        self.rounds = 0.0
        party = solver.party
        self.members = [p.index for p in solver.fighters if p.side == party] if party is not None else []
        self.downs = [0.0] * (len(self.members) + 1)
        self.deaths = [0.0] * (len(self.members) + 1)
        self.down = [0.0] * len(solver.fighters)
        self.death = [0.0] * len(solver.fighters)
        self.residual = 0.0
        self.peak = 0

    def add(self, state: State, p: float, rnd: int, drawn: bool = False) -> None:
        winner = None if drawn else self.solver._winner(state)
        self.wins[winner] += p
        self.rounds += p * rnd
        dead = [not drawn and f.side != winner for f in self.solver.fighters]
        for f in self.solver.fighters:
            if dead[f.index]:
                self.death[f.index] += p
            if dead[f.index] or state[0][f.index][DOWN]:
                self.down[f.index] += p
        self.downs[sum(bool(state[0][j][DOWN]) or dead[j] for j in self.members)] += p
        self.deaths[sum(dead[j] for j in self.members)] += p

    def result(self) -> Result:
        solver = self.solver
        names = [f.name for f in solver.fighters]
        total = sum(self.wins.values()) or 1.0
        return Result(
            sides=solver.side_names,
            party=solver.side_names[solver.party] if solver.party is not None else None,
            wins={name: self.wins.get(s, 0.0) for s, name in enumerate(solver.side_names)},
            draw=self.wins.get(None, 0.0),
            rounds_mean=self.rounds / total,
            party_downs=self.downs, party_deaths=self.deaths,
            down=dict(zip(names, self.down, strict=True)),
            death=dict(zip(names, self.death, strict=True)),
            residual=self.residual, peak_states=self.peak,
        )



def _with(local: Local, field: int, value: int) -> Local:
    return (*local[:field], value, *local[field + 1:])


def _set(state: State, i: int, local: Local) -> State:
    locals_ = state[0]
    return ((*locals_[:i], local, *locals_[i + 1:]), state[1], state[2])


def _merge(pairs: Iterator[tuple[State, float]] | tuple) -> dict[State, float]:
    out: dict[State, float] = defaultdict(float)
    for state, p in pairs:
        out[state] += p
    return out


def _merged(pairs: list[tuple[float, State]]) -> list[tuple[float, State]]:
    return [(p, s) for s, p in _merge((s, p) for p, s in pairs).items()]
