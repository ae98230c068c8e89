"""Readable narration of a battle, one line per meaningful event of its log."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from sim.terminal import clean, plural

Event = dict[str, Any]


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def _battle_started(e: Event) -> str:
    sides: dict[str, list[str]] = {}
    for c in e["combatants"]:
        sides.setdefault(c["side"], []).append(f"{c['name']} ({c['hp']} HP)")
    lines = [f"== {e['scenario']} ({e['rules']}, seed {e['seed']}) =="]
    lines += [f"  {side}: {', '.join(names)}" for side, names in sides.items()]
    return "\n".join(lines)


def _round_started(e: Event) -> str:
    extra = f" -- surprise round for {e['surprise']}" if e.get("surprise") else ""
    return f"\n-- Round {e['round']}{extra} --"


def _initiative(e: Event) -> str:
    return f"Initiative ({e['side']}): d{e['die']} = {e['roll']}; {e['first']} first."


def _check(e: Event) -> str:
    system = e.get("system")
    if system == "d100":
        return _roll_under(e)
    if system == "2d10":
        return _quality(e)
    if system == "d10":
        return _open_ended(e)
    dice = ",".join(str(d) for d in e["dice"])
    adv = {1: " with advantage", -1: " with disadvantage"}.get(e.get("advantage", 0), "")
    verdict = e["degree"].replace("_", " ")
    hero = f" (heroism d6: {e['heroism']})" if e.get("heroism") else ""
    return (f"  {e['actor']} rolls {e['purpose']}{adv}: [{dice}] {_signed(e['modifier'])}"
            f" = {e['total']} vs {e['target']}{hero}: {verdict}.")


def _roll_under(e: Event) -> str:
    """d100: the roll against the score with its modifiers."""
    adv = {1: " with advantage", -1: " with disadvantage"}.get(e.get("advantage", 0), "")
    rolls = "/".join(str(d) for d in e["dice"])
    mods = f" {_signed(e['modifier'])}" if e["modifier"] else ""
    score = e.get("score", e["target"] - e["modifier"])
    return (f"  {e['actor']} rolls {e['purpose']}{adv}: {rolls}, needs {e['target']} or less"
            f" ({score}{mods}): {e['degree'].replace('_', ' ')}.")


def _quality(e: Event) -> str:
    """2d10: R against SR, and the quality Q = SR - R."""
    adv = {1: " (2d8, advantage)", -1: " (2d12, disadvantage)"}.get(e.get("advantage", 0), "")
    bands = {"critical_success": "exploit", "critical_failure": "disaster"}
    verdict = bands.get(e["degree"], e["degree"])
    return (f"  {e['actor']} rolls {e['purpose']}{adv}: {'+'.join(map(str, e['dice']))}"
            f" = {e['total']} against {e['target']}: quality {_signed(e['margin'])}, {verdict}.")


def _open_ended(e: Event) -> str:
    """d10: the open-ended chain, its sum, attribute + skill, against the difficulty."""
    chain = ",".join(str(d) for d in e.get("chain", e["dice"]))
    # kept is no required field (a hand-edited log without it crashed the narration): it is
    # the total less the modifier
    kept = e["total"] - e["modifier"] if e.get("kept") is None else e["kept"]
    return (f"  {e['actor']} rolls {e['purpose']}: d10 chain [{chain}] = {kept}"
            f" {_signed(e['modifier'])} = {e['total']} vs {e['target']}:"
            f" {e['degree'].replace('_', ' ')}.")


def _attack(e: Event) -> str:
    how = "hits" if e["hit"] else "is parried" if e.get("defended") else "misses"
    if e.get("fumble"):
        how = "fumbles"
    tags = [t for t in ("surprise", "outnumbered") if e.get(t)]
    tag = f" ({', '.join(tags)})" if tags else ""
    return f"{e['actor']} attacks {e['target']} with {e['weapon']}{tag} and {how}."


def _ints(*values: object) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


def _dice(e: Event) -> str:
    """`` (6+3)``: the natural dice and the flat bonus behind an amount, and what armor took
    off (`` (6+3, armor -2)``); nothing for a log that does not record them."""
    dice, bonus = e.get("dice"), e.get("bonus")
    if not isinstance(dice, list) or not dice or not _ints(*dice, bonus, e["amount"]):
        return ""  # an older log, or one written by hand: no roll to tell
    told = "+".join(map(str, dice)) + (f"{bonus:+d}" if bonus else "")
    absorbed = sum(dice) + bonus - e["amount"]
    armor = f", armor -{absorbed}" if absorbed > 0 and not e.get("armor_piercing") else ""
    return f" ({told}{armor})"


def _damage(e: Event) -> str:
    """The amount as rolled with its dice, and the HP it took (less when it hit 0)."""
    before, after = e["hp_before"], e["hp_after"]
    if e.get("cost") is True:  # the caster's own price for a spell, not a blow
        return f"  {e['target']} pays {e['amount']} HP for the spell ({before} -> {after} HP)."
    by = f" from {e['source']}" if e.get("source") else ""
    took = f"  {e['target']} takes {e['amount']}{_dice(e)} {e['kind']} damage{by}"
    if _ints(before, after, e["amount"]) and before - after < e["amount"]:
        return f"{took}, loses {before - after} HP ({before} -> {after})."
    return f"{took} ({before} -> {after} HP)."


def _effect_ended(e: Event) -> str:
    reason = f" ({e['reason']})" if e.get("reason") else ""
    return f"  {e['target']} is no longer {e['effect']}{reason}."


def _item(e: Event) -> str:
    """A potion drunk, or poured into an ally (who may wake up)."""
    how = (f"drinks a {e['item']}" if e["target"] == e["actor"]
           else f"pours a {e['item']} into {e['target']}")
    woke = f"; {e['target']} wakes up" if e.get("woke") else ""
    return (f"{e['actor']} {how}: +{e['healed']} HP ({e['hp_before']} -> {e['hp_after']}){woke}"
            f", {e['left']} left.")


def _resource(e: Event) -> str:
    roll = f" (rolled {e['roll']})" if "roll" in e else ""
    return f"  {e['actor']} spends {e['amount']} {e['resource']}{roll}."


def _battle_ended(e: Event) -> str:
    head = f"{e['winner']} win" if e["winner"] else "The battle is a draw"
    why = {"stalemate": ": stalemate, nobody can hurt anybody any more",
           "max_rounds": ": the round limit"}.get(e.get("stopped", ""), "")
    lines = [f"\n== {head} after {plural(e['rounds'], 'round')}{why}. =="]
    for label, key in (("dead", "dead"), ("knocked out", "knocked_out"), ("broken", "broken"),
                       ("fled", "fled"), ("left behind, alive", "left_behind")):
        if e.get(key):
            lines.append(f"   {label}: {', '.join(e[key])}")
    return "\n".join(lines)


def _rested(e: Event) -> str:
    """A party member after one rest of a day (rules §7): what came back."""
    if e.get("fresh"):  # before its first fight: only the rest's morale token counts
        return f"  {e['actor']} rests before the first fight (+1 morale token, if morale is on)."
    if e.get("hp_rolled") is not None:
        bonus = f" + {e['hardy_bonus']} for a heroism die" if e.get("heroism_spent") else ""
        extra = f"; hit dice re-rolled: {e['hp_rolled']}{bonus}"
    else:
        extra = ""
    parts = [f"HP {e['hp_before']} -> {e['hp_after']}/{e['max_hp']}"]
    if e["unhealable_before"]:
        parts.append(f"unhealable {e['unhealable_before']} -> {e['unhealable_after']}")
    if e["max_psy"]:
        parts.append(f"PSY {e['psy_before']} -> {e['psy_after']}/{e['max_psy']}")
    if e["fatigue_before"]:
        parts.append(f"fatigue {e['fatigue_before']} -> {e['fatigue_after']}")
    if e["max_heroism"]:
        parts.append(f"heroism {e['heroism_before']} -> {e['heroism_after']}/{e['max_heroism']}")
    if e["morale_before"] is not None:
        parts.append(f"morale {e['morale_before']} -> {e['morale_after']}")
    return f"  {e['actor']} rests: {', '.join(parts)}{extra}."


def day_verdict(completed: bool, step: int | None = None, steps: int | None = None) -> str:
    """How a day ended: seen through, lost at its last step, or ended early at step N of M
    (``step``: the 0-based last step reached; unknown for a day_ended read alone)."""
    if completed:
        return "the party sees the day through"
    if step is None or steps is None:
        return "the day ends before its end"
    if step + 1 >= steps:
        return f"the day ends at its last step ({steps} of {steps})"
    return f"the day ends early, at step {step + 1} of {steps}"


def _day_ended(e: Event) -> str:
    verdict = day_verdict(e["completed"], e.get("last_step"), e.get("steps"))
    dead = f"; dead: {', '.join(e['dead'])}" if e["dead"] else ""
    return f"\n==== {verdict}: {e['rounds']} rounds of fighting{dead}. ===="


def _encounter_started(e: Event) -> str:
    head = f"\n=== Step {e['step'] + 1}: {e['name']} ==="
    carried = e.get("carried") or ()
    if not carried:
        return head
    who = ", ".join(carried)
    return (f"{head}\n{who} {'is' if len(carried) == 1 else 'are'} carried along at 0 HP,"
            " taking no part (only magic raises them).")


def _revived(e: Event) -> str:
    """A potion poured between fights into a member at 0 HP (rules §7)."""
    woke = f"; {e['target']} wakes up" if e.get("woke") else ""
    return (f"Between fights, {e['actor']} pours a {e['item']} into {e['target']}:"
            f" +{e['healed']} HP ({e['hp_before']} -> {e['hp_after']}){woke}, {e['left']} left.")


def _rest_header(e: Event) -> str:
    return f"\n=== Step {e['step'] + 1}: {e['kind']} rest, {e['hours']} h ==="


NARRATORS: dict[str, Callable[[Event], str]] = {
    "day_started": lambda e: (f"==== {e['day']} ({e['rules']}, seed {e['seed']}):"
                              f" a day of {e['steps']} steps for {', '.join(e['party'])} ===="),
    "encounter_started": _encounter_started,
    "rested": lambda e: _rested(e),
    "revived": _revived,
    "day_ended": _day_ended,
    "battle_started": _battle_started,
    "round_started": _round_started,
    "initiative_rolled": _initiative,
    "check_rolled": _check,
    "attack_resolved": _attack,
    "damage_dealt": _damage,
    "resource_spent": _resource,
    "item_used": _item,
    "knocked_out": lambda e: f"  ** {e['target']} is knocked out.",
    "died": lambda e: f"  ** {e['target']} dies ({e['cause']}).",
    "fled": lambda e: f"  {e['target']} flees.",
    "moved": lambda e: (f"{e['actor']} {'runs' if e.get('run') else 'moves'}"
                        f" {abs(e['x_after'] - e['x_before']):g} m toward {e['toward']}."),
    "turn_skipped": lambda e: f"{e['actor']} loses the turn.",
    "effect_started": lambda e: f"  {e['target']} is now {e['effect']}.",
    "effect_ended": _effect_ended,
    "spirit_lost": lambda e: (f"  {e['target']} is terrified by {e['source']}: -{e['amount']} spirit"
                              f" ({e['spirit_before']} -> {e['spirit_after']})."),
    "group_check_resolved": lambda e: (f"Group {e['what']} check: {e['successes']} succeed, "
                                       f"{e['failures']} fail: {'success' if e['success'] else 'failure'}."),
    "morale_changed": lambda e: (f"  {e['actor']} morale {_signed(e['delta'])} ({e['reason']}),"
                                 f" now {e['tokens']}."),
    "battle_ended": _battle_ended,
    "scripted": lambda e: f"** Scripted: {e['do']} ({', '.join(e['targets']) or 'nobody'}).",
    "characteristic_lost": lambda e: (f"  {e['target']} loses {e['amount']} {e['characteristic']}"
                                      f" ({e['cause']})."),
    "fatigue_gained": lambda e: f"  {e['actor']} tires ({e['reason']}): fatigue {e['fatigue']}.",
    "stood_up": lambda e: f"{e['actor']} stands up.",
    "helped_up": lambda e: f"{e['actor']} helps {e['target']} up.",
    "rescued": lambda e: f"{e['actor']} pulls {e['target']} out.",
    "learning_ticked": lambda e: f"  {e['actor']} ticks the learning box of {e['skill']}.",
}


# Rolls logged before the attack they decide; narrated after its headline so
# the story reads "A attacks B", then the dice.
_ATTACK_ROLLS = frozenset({"attack", "defense", "morale_reroll", "despair", "riding"})
# A riding roll before an attack whose fumble unseats the rider: the attack never comes, so
# the narration gives it a headline of its own (the other riding roll, when a mount falls,
# ends with reason "mount fell" and is told as it comes).
_RIDING_FUMBLE = "fell from the saddle"


# What else an attack's rolls can trigger before the attack is resolved (heroism, morale,
# learning, fatigue, despair): held with them, so a replay reads in the order of the fiction.
_HOLDABLE = frozenset({"check_rolled", "resource_spent", "morale_changed", "learning_ticked",
                       "effect_started", "effect_ended", "fatigue_gained"})


def _opens_attack(event: Event) -> bool:
    name = event.get("event")
    if name == "check_rolled":
        return event.get("purpose") in _ATTACK_ROLLS
    return name == "resource_spent" and event.get("resource") in ("heroism", "morale")


def _silent(event: Event) -> bool:
    """Events a reader does not need: effects ending because their owner died."""
    return event.get("event") == "effect_ended" and event.get("reason") == "died"


class Teller:
    """Narrates events in order, with what earlier ones told: the step of a day (a rest step
    gets its header, day_ended its right words), and who is down at 0 HP, whose damage that
    changes nothing is told once ("still burns") and whose rolls are not told at all."""

    def __init__(self) -> None:
        self.steps: int | None = None
        self.step: int | None = None
        self.down: set[str] = set()  # unconscious or dead at 0 HP
        self.told: set[str] = set()  # of those, the ones already told to take damage for nothing

    def tell(self, event: Event) -> str | None:
        """The event's line (several lines for a header), or None when it is not worth telling."""
        name = event.get("event", "")
        narrator = NARRATORS.get(name)
        if narrator is None or _silent(event) or self._idle(event):
            self._follow(event)
            return None
        header = ""
        if name == "rested" and event.get("step") != self.step:
            header = _rest_header(event) + "\n"
        if name == "day_ended":
            event = {**event, "steps": self.steps, "last_step": self.step}
        self._follow(event)
        if name == "damage_dealt" and event["target"] in self.down and event["hp_before"] == 0:
            if event.get("source"):  # a blow at one already down: the attack was told
                return (f"  {event['target']} takes {event['amount']} {event['kind']} damage from"
                        f" {event['source']}: already at 0 HP, nothing changes.")
            self.told.add(event["target"])  # an ongoing effect: told once
            return (f"  {event['target']} lies at 0 HP and still takes {event['kind']} damage:"
                    " nothing changes (not told again).")
        return header + narrator(event)

    def _idle(self, event: Event) -> bool:
        """Damage told once already, or a roll, of someone down at 0 HP: nothing changes."""
        name = event.get("event")
        if name == "check_rolled":
            return event.get("actor") in self.down
        return (name == "damage_dealt" and event.get("target") in self.told
                and event.get("hp_before") == event.get("hp_after") == 0)

    def _follow(self, event: Event) -> None:
        name = event.get("event")
        if name == "day_started":
            self.steps = event.get("steps")
        if "step" in event and name in ("encounter_started", "rested", "encounter_ended"):
            self.step = event["step"]
        if name in ("knocked_out", "died"):
            self.down.add(event.get("target", ""))
        elif name in ("damage_dealt", "item_used", "rested", "revived"):
            who = event.get("target") or event.get("actor")
            if isinstance(event.get("hp_after"), int) and event["hp_after"] > 0:
                self.down.discard(who)
                self.told.discard(who)
        elif name == "battle_started":
            self.told.clear()
            self.down = {c["name"] for c in event.get("combatants", ()) if c.get("hp") == 0}


def narrate(events: Iterable[Event]) -> Iterator[str]:
    """Yield the narration lines of a battle's events (events without a narrator are silent)."""
    held: list[str] = []
    teller = Teller()
    started: dict[str, bool] = {"day": False, "battle": False}  # and not ended yet
    for raw in events:
        name = raw.get("event", "")
        what, _, edge = str(name).partition("_")
        if what in started and edge in ("started", "ended"):
            started[what] = edge == "started"
            started["battle"] &= not (what == "day" and edge == "ended")
        event = clean(raw)  # names and every other string are data, never terminal codes
        told = teller.tell(event)
        if told is None:
            continue
        line = told
        if name == "attack_resolved":
            yield line
            yield from held
            held.clear()
        elif _opens_attack(event) or (held and name in _HOLDABLE):
            held.append(line)
            if name == "effect_ended" and event.get("effect") == "mounted":
                if event.get("reason") == _RIDING_FUMBLE:
                    yield f"{event['target']} attacks from the saddle and fumbles the riding roll."
                yield from held
                held.clear()
        else:
            yield from held
            held.clear()
            yield line
    yield from held
    unended = next((what for what in ("battle", "day") if started[what]), None)
    if unended is not None:  # a log cut at a line's end reads whole: said, not narrated as whole
        yield (f"The log ends here, before the {unended} does: it was cut short (sim replay --verify"
               " plays it again to compare).")

