"""sim spread's presets: they set tactics keys on a whole side and change nothing else."""

from __future__ import annotations

import pathlib

import attrs
import pytest

from sim.batch import ChunkTask, LogPlan, run_chunk
from sim.day.file import load_input
from sim.decide.presets import PRESETS, apply, groups, played, scenarios, without_tactics
from sim.errors import InputError

ROOT = pathlib.Path(__file__).parent.parent.parent
AMBUSH = ROOT / "scenarios" / "road_ambush.yaml"
WARREN = ROOT / "scenarios" / "days" / "goblin_warren.yaml"
WOLF_FORD = ROOT / "scenarios" / "wolf_ford.yaml"  # both sides: tactics {target: focus}
MOUNTED = ROOT / "scenarios" / "mounted_charge.yaml"  # d100, riders and mounts
WYVERN = ROOT / "scenarios" / "wyvern_crag.yaml"  # d100, potions, a member's own potion_at
# One encounter per rule system, a day, and the files whose tactics the presets override.
SUBJECTS = [AMBUSH, WARREN, WOLF_FORD, MOUNTED, WYVERN, ROOT / "scenarios" / "bear_den.yaml",
            ROOT / "scenarios" / "graveyard_ghouls.yaml"]


def _acting(subject) -> list:
    """(side, tactics) of every fighter: its own over its side's, key by key, as the engine reads them."""
    return [(side, side.tactics if c.tactics is None else c.tactics.over(side.tactics))
            for scenario in scenarios(subject) for side in scenario.sides for c in side.members]


def _counts(subject, n: int = 40) -> dict:
    """The summary of battles 0..n-1 of seed 5, elapsed time aside."""
    result = run_chunk(ChunkTask(subject, 5, 0, n, LogPlan()))
    return result.aggregate.summary({})


@pytest.mark.parametrize("path", SUBJECTS, ids=lambda p: p.stem)
def test_presets_change_only_tactics(path):
    """With every tactics key dropped, each preset of each side leaves the resolved encounter (or
    day) exactly as written: no rule, stat block, die or option moves."""
    subject = load_input(path, ())
    bare = without_tactics(subject)
    for group in groups(subject, None):
        for preset in PRESETS:
            changed = apply(subject, [(group, preset)])
            assert without_tactics(changed) == bare, (group.side, preset.name)
            assert without_tactics(changed).resolved_sha256 == bare.resolved_sha256
            # ... and of the tactics, only the preset's keys, only on its side.
            for before, after in zip(_acting(subject), _acting(changed), strict=True):
                side, old = before
                wanted = attrs.evolve(old, **preset.tactics) if group.plays(side) else old
                assert after[1] == wanted, (group.side, preset.name)


@pytest.mark.parametrize("path", [AMBUSH, WARREN, MOUNTED], ids=lambda p: p.stem)
def test_a_preset_sets_its_keys_on_every_fighter_of_its_side(path):
    """Members' own tactics (a bestiary entry's target, a mount's) are overridden too: the whole
    side plays the preset's way, and the other side as written."""
    subject = load_input(path, ())
    party, _ = groups(subject, None)
    changed = apply(subject, [(party, PRESETS[1])])  # strongest
    for before, after in zip(scenarios(subject), scenarios(changed), strict=True):
        for old, new in zip(before.sides, after.sides, strict=True):
            for c_old, c_new in zip(old.members, new.members, strict=True):
                mine = new.tactics if c_new.tactics is None else c_new.tactics.over(new.tactics)
                if new.party:
                    assert mine.policy == "strongest"
                else:
                    assert c_new == c_old and new.tactics == old.tactics


@pytest.mark.parametrize("path", SUBJECTS, ids=lambda p: p.stem)
def test_equal_played_tactics_fight_the_same_battles(path):
    """Where a preset leaves every fighter acting as written (``played`` equal: spread counts it
    once), playing it anyway gives the very same figures; where it does not, the preset's
    keys reach the fighters."""
    subject = load_input(path, ())
    written = _counts(subject)
    for group in groups(subject, None):
        for preset in PRESETS:
            changed = apply(subject, [(group, preset)])
            if played(changed) == played(subject):
                assert _counts(changed) == written, (group.side, preset.name)


def test_a_preset_equal_to_the_files_tactics_gives_the_same_figures():
    """wolf_ford writes {target: focus} for its heroes: the party's focus preset plays as written,
    battle for battle. (Its wolves' bestiary entry hunts the weakest over their side's focus,
    so the opposition's focus preset does change their play.)"""
    subject = load_input(WOLF_FORD, ())
    focus = next(p for p in PRESETS if p.name == "focus")
    party, opposition = groups(subject, None)
    changed = apply(subject, [(party, focus)])
    assert changed != subject  # the keys were written on every member: another model
    assert played(changed) == played(subject)
    assert _counts(changed, 200) == _counts(subject, 200)
    hunting = apply(subject, [(opposition, focus)])
    assert played(hunting) != played(subject)
    assert _counts(hunting, 200) != _counts(subject, 200)


def test_side_names_a_group():
    subject = load_input(AMBUSH, ())
    assert [g.side for g in groups(subject, None)] == ["party", "opposition"]
    assert [g.label for g in groups(subject, None)] == ["heroes", "goblins"]
    assert [g.side for g in groups(subject, "heroes")] == ["party"]
    assert [g.side for g in groups(subject, "opposition")] == ["opposition"]
    assert [(g.side, g.names) for g in groups(subject, "goblins")] == [("goblins", frozenset({"goblins"}))]
    with pytest.raises(InputError, match=r"--side: no side 'orcs' here; one of party, opposition, heroes,"
                                         r" goblins"):
        groups(subject, "orcs")


def test_day_opposition_is_every_foe_of_the_day():
    """A day's opposition is every non-party side of its encounters; --side names one of them."""
    day = load_input(WARREN, ())
    party, opposition = groups(day, None)
    assert party.label == "heroes" and opposition.label == "the foes"
    assert len(opposition.names) >= 2
    one = sorted(opposition.names)[0]
    (only,) = groups(day, one)
    changed = apply(day, [(only, PRESETS[1])])
    for scenario in scenarios(changed):
        for side in scenario.sides:
            assert (side.tactics.target == "strongest") == (side.name == one)


def test_the_guide_lists_every_preset_with_its_keys():
    """docs/guide/spread.md's table: a row per preset, naming each key it sets with its value."""
    page = (ROOT / "docs" / "guide" / "spread.md").read_text()
    rows = {line.split("|")[1].strip(" `"): line for line in page.splitlines() if line.startswith("| `")}
    assert set(rows) == {p.name for p in PRESETS}
    for preset in PRESETS:
        for key, value in preset.keys:
            assert f"`{key}: {value:g}`" in rows[preset.name] if isinstance(value, float) else \
                f"`{key}: {value}`" in rows[preset.name]


def test_no_revive_plays_only_where_a_days_party_carries_potions(tmp_path):
    """revive is read between a day's fights, by a party with a potion to pour: there the preset
    changes the days; without a potion it fights the very same days, and spread counts it once."""
    from tests.day.test_revive import day_text
    from tests.day_files import write_day

    no_revive = next(p for p in PRESETS if p.name == "no-revive")
    for k, (items, differs) in enumerate(((", items: [{heal: 2d4+2, count: 2}]", True), ("", False))):
        (tmp_path / str(k)).mkdir()
        day = load_input(write_day(tmp_path / str(k), day_text(frail_items=items)), ())
        party, _ = groups(day, None)
        changed = apply(day, [(party, no_revive)])
        assert (played(changed) != played(day)) is differs
        assert (_counts(changed, 150) != _counts(day, 150)) is differs
    encounter = load_input(AMBUSH, ())
    party, _ = groups(encounter, None)
    assert played(apply(encounter, [(party, no_revive)])) == played(encounter)  # no rest, no revive
