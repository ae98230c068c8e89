"""The keyboard-driven terminal replay of one battle's event log (a textual App)."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.widgets import Static

from sim.replay.state import BattleView, CheckView, CombatantView
from sim.terminal import clean

BAR_WIDTH = 10
HELP = ("→/l/n next  ←/h/p previous  ]/[ next/previous round  c next check  k next knock-out"
        "  Home/End first/last  q quit")
STATUS_STYLES = {"active": "green", "unconscious": "yellow", "dead": "bold red", "fled": "cyan",
                 "broken": "magenta", "left_behind": "yellow"}


def hp_bar(hp: int, max_hp: int, width: int = BAR_WIDTH) -> str:
    """``██████░░░░ 12/20``: filled blocks for the HP left (at least one while above 0)."""
    filled = 0 if hp <= 0 or max_hp <= 0 else max(1, min(width, round(width * hp / max_hp)))
    return f"{'█' * filled}{'░' * (width - filled)} {hp}/{max_hp}"


def _bar_style(hp: int, max_hp: int) -> str:
    share = hp / max_hp if max_hp > 0 else 0
    return "green" if share > 0.5 else "yellow" if share > 0.25 else "red"


def combatant_text(c: CombatantView, name_width: int = 12) -> Text:
    """A combatant in two lines: name, HP bar, status; then effects and resources."""
    text = Text(f"{c.name:<{name_width}} ")
    text.append(hp_bar(c.hp, c.max_hp), style=_bar_style(c.hp, c.max_hp))
    text.append("  ")
    text.append(c.status, style=STATUS_STYLES.get(c.status, ""))
    details = c.details()
    text.append("\n  " + ("  ".join(details) if details else "-"), style="dim")
    return text


def check_text(check: CheckView) -> Text:
    """The dice, modifier, total, target and outcome of a check, on one line."""
    dice = ", ".join(map(str, check.dice))
    kept = f" (kept {check.kept})" if check.kept is not None and len(check.dice) > 1 else ""
    text = Text(f"{check.system} {check.purpose} by {check.actor}: dice [{dice}]{kept}"
                f"  modifier {check.modifier:+d}  total {check.total}  target {check.target}  -> ")
    text.append(f"{check.outcome.replace('_', ' ')} (margin {check.margin:+d})",
                style="bold green" if check.success else "bold red")
    return text


class ReplayApp(App[None]):
    """Step through one battle: sides and HP, the current event explained, its dice."""

    CSS = """
    #header { background: $primary; color: $text; padding: 0 1; text-style: bold; }
    #sides { height: auto; }
    .side { width: 1fr; height: auto; border: round $secondary; padding: 0 1; }
    .combatant { height: auto; }
    #current { height: auto; border: round $accent; padding: 0 1; }
    #event, #check { height: auto; }
    #help { dock: bottom; background: $panel; padding: 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,l,n", "step(1)", "next"),
        Binding("left,h,p", "step(-1)", "previous"),
        Binding("right_square_bracket", "next_round", "next round"),
        Binding("left_square_bracket", "previous_round", "previous round"),
        Binding("c", "next_check", "next check"),
        Binding("k", "next_knockout", "next knock-out"),
        Binding("home", "first", "first"),
        Binding("end", "last", "last"),
        Binding("q", "quit", "quit"),
    ]

    position: reactive[int] = reactive(0)

    def __init__(self, events: list[dict[str, Any]]) -> None:
        super().__init__()
        self.battle = BattleView(clean(events))  # a log is data: no control codes reach the screen
        self.title = str(self.battle.header.get("scenario", "replay"))

    def compose(self) -> ComposeResult:
        yield Static(id="header")
        with Horizontal(id="sides"):
            index = 0
            for side, members in self.battle.sides.items():
                with Vertical(classes="side") as column:
                    column.border_title = Text(side)  # Text: a name is never markup
                    for _ in members:
                        yield Static(id=f"combatant-{index}", classes="combatant")
                        index += 1
        with Vertical(id="current") as current:
            current.border_title = "event"
            yield Static(id="event")
            yield Static(id="check")
        yield Static(HELP, id="help")

    def on_mount(self) -> None:
        self._show()

    def watch_position(self, _position: int) -> None:
        if self.is_mounted:
            self._show()

    # -- actions -------------------------------------------------------------------

    def action_step(self, delta: int) -> None:
        self.position = self.battle.step(delta)

    def action_next_round(self) -> None:
        self.position = self.battle.next_round()

    def action_previous_round(self) -> None:
        self.position = self.battle.previous_round()

    def action_next_check(self) -> None:
        self.position = self.battle.next_check()

    def action_next_knockout(self) -> None:
        self.position = self.battle.next_knockout()

    def action_first(self) -> None:
        self.position = self.battle.first()

    def action_last(self) -> None:
        self.position = self.battle.last()

    # -- drawing -------------------------------------------------------------------

    def _show(self) -> None:
        self.query_one("#header", Static).update(Text(self.header_line()))
        self._show_sides()
        self._show_event()

    def _show_sides(self) -> None:
        combatants = [c for members in self.battle.sides.values() for c in members]
        width = max(len(c.name) for c in combatants)
        for index, combatant in enumerate(combatants):
            self.query_one(f"#combatant-{index}", Static).update(combatant_text(combatant, width))

    def _show_event(self) -> None:
        event = self.battle.current
        title = f"round {event['round']} · {event['event']}"
        self.query_one("#event", Static).update(Text(f"{title}\n{self.battle.explain()}"))
        check, panel = self.battle.check(), self.query_one("#check", Static)
        panel.update(check_text(check) if check is not None else "")
        panel.display = check is not None

    def header_line(self) -> str:
        """Scenario (or day), rules, seed, round and the event counter (1-based)."""
        view, head = self.battle, self.battle.header
        shared = "".join(f" · {name} {value}" for name, value in view.shared.items())
        name = head.get("scenario", head.get("day", "?"))  # a day's header names the day
        return (f"{name} · {head.get('rules', '?')} · seed {head.get('seed', '?')}"
                f" · round {view.round}/{view.last_round} · event {view.position + 1}/{len(view.events)}"
                f"{shared}")


def run_replay_ui(events: list[dict[str, Any]]) -> None:
    """Run the interactive replay of one battle's events until the user quits."""
    ReplayApp(events).run()
