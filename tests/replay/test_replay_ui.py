"""The terminal replay, driven key by key through textual's test pilot."""

from __future__ import annotations

import asyncio
import pathlib
from collections.abc import Awaitable, Callable

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from sim.replay.load import read_log
from sim.replay.state import BattleView
from sim.replay.ui import ReplayApp, hp_bar

GOLDEN = pathlib.Path(__file__).parent.parent / "data" / "golden" / "skirmish_seed1.jsonl"


@pytest.fixture(scope="module")
def events() -> list[dict]:
    return read_log(GOLDEN)


def drive(events: list[dict], script: Callable[[ReplayApp, Pilot], Awaitable[None]]) -> ReplayApp:
    """Run the app headless around ``script(app, pilot)`` and return it once closed."""
    app = ReplayApp(events)

    async def session() -> None:
        async with app.run_test(size=(120, 32)) as pilot:
            await script(app, pilot)

    asyncio.run(session())
    return app


def text(app: ReplayApp, selector: str) -> str:
    """The plain text a Static shows."""
    return str(app.query_one(selector, Static).render())


class TestHpBar:
    """The bar drawn next to each combatant."""

    def test_bar_shapes(self) -> None:
        """Ten cells, filled in proportion to HP left, at least one while above 0."""
        assert hp_bar(12, 20) == "██████░░░░ 12/20"
        assert hp_bar(20, 20) == "██████████ 20/20"
        assert hp_bar(1, 100) == "█░░░░░░░░░ 1/100"
        assert hp_bar(0, 6) == "░░░░░░░░░░ 0/6"


class TestKeys:
    """Each key moves the replay where its help says."""

    def test_right_steps_and_left_steps_back(self, events: list[dict]) -> None:
        """The counter goes 1/n -> 4/n after three Right presses; l, n, h, p and Left step too."""
        n = len(events)
        seen: list[str] = []

        async def script(app: ReplayApp, pilot: Pilot) -> None:
            seen.append(text(app, "#header"))
            await pilot.press("right", "right", "right")
            seen.append(text(app, "#header"))
            await pilot.press("l", "n")
            seen.append(text(app, "#header"))
            await pilot.press("h", "p", "left")
            seen.append(text(app, "#header"))

        drive(events, script)
        assert [line.split("event ")[-1] for line in seen] == [f"1/{n}", f"4/{n}", f"6/{n}", f"3/{n}"]
        assert seen[0].startswith("Golden skirmish · d20 · seed 1 · round 0/8")

    def test_jumps(self, events: list[dict]) -> None:
        """], [, c, k, End and Home land where BattleView's jumps do."""
        view = BattleView(events)
        expected = [view.next_round(), view.next_round(), view.previous_round(), view.next_check(),
                    view.next_knockout(), view.last(), view.first()]
        positions: list[int] = []

        async def script(app: ReplayApp, pilot: Pilot) -> None:
            for key in ("]", "]", "[", "c", "k", "end", "home"):
                await pilot.press(key)
                positions.append(app.battle.position)

        drive(events, script)
        assert positions == expected

    def test_q_quits(self, events: list[dict]) -> None:
        """q closes the app."""

        async def script(app: ReplayApp, pilot: Pilot) -> None:
            await pilot.press("q")
            await pilot.pause()
            assert not app.is_running

        drive(events, script)


class TestScreen:
    """What the screen shows about the battle."""

    def test_combatants_match_the_state(self, events: list[dict]) -> None:
        """Every combatant's line shows BattleView's HP bar, status and resources at the end."""
        view = BattleView(events)
        view.last()
        lines: list[str] = []

        async def script(app: ReplayApp, pilot: Pilot) -> None:
            await pilot.press("end")
            lines.extend(text(app, f"#combatant-{i}") for i in range(len(view.combatants)))

        drive(events, script)
        for line, combatant in zip(lines, view.combatants.values(), strict=True):
            assert line.startswith(combatant.name)
            assert f"{hp_bar(combatant.hp, combatant.max_hp)}  {combatant.status}" in line
        assert "heroism 0  spirit 18" in lines[0]
        assert "broken" in lines[1]

    def test_check_shows_its_dice(self, events: list[dict]) -> None:
        """A check shows dice, modifier, target and outcome; the next event hides that line."""
        shown: list[tuple[str, str, bool]] = []

        async def script(app: ReplayApp, pilot: Pilot) -> None:
            for key in ("c", "right", "right"):
                await pilot.press(key)
                shown.append((text(app, "#event"), text(app, "#check"),
                              app.query_one("#check", Static).display))

        drive(events, script)
        (event, check, visible), (again, other, _), (after, _, hidden) = shown
        assert event.startswith("round 0 · check_rolled\nAria rolls stealth")
        assert check == ("d20 stealth by Aria: dice [5]  modifier +5  total 10  target 16"
                         "  -> failure (margin -6)")
        assert again.startswith("round 0 · check_rolled\nBrom rolls stealth")
        assert other.startswith("d20 stealth by Brom: dice [19]")
        assert after.startswith("round 0 · group_check_resolved")
        assert visible and not hidden

    def test_help_line_lists_the_keys(self, events: list[dict]) -> None:
        """The help line names every key."""
        help_line: list[str] = []

        async def script(app: ReplayApp, pilot: Pilot) -> None:
            help_line.append(text(app, "#help"))

        drive(events, script)
        for key in ("→/l/n", "←/h/p", "]/[", "c next check", "k next knock-out", "Home/End", "q quit"):
            assert key in help_line[0]


def test_items_left_are_shown() -> None:
    """Items (rules §8): a combatant's potions left show beside its other resources."""
    from sim.replay.state import CombatantView
    from sim.replay.ui import combatant_text

    text = combatant_text(CombatantView("Aria", "heroes", 7, 10, resources={"healing potion": 1}))
    assert "healing potion 1" in text.plain
