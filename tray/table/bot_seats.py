"""Computer players at the table: a bot seat decides through the same table flow as a button.

A seat whose player name is a bot name (``Bot``, ``Bot careful``...: the config's ``"bot"`` /
``"bot:careful"``, see ``tray.rules.bots.seat_names``) is played by a ``tray.rules.bots.Bot``.
Each time the game changes, :meth:`BotSeats.tick` asks the bots whose decision the table
waits for; the screen says what the bot chose (a hidden IN/OUT only that it has chosen), and
after ``pause_s`` seconds, so that people can follow, the choice goes in the way a button
would send it: a hidden IN/OUT joins the others before the countdown, a one-press decision
(bank, stop, Tally Up!) is a press, a choice is sent as if highlighted and confirmed. The dice
are still thrown by a person: when a bot is to roll, the screen says which dice to throw for
it. A person acting first (or a new roll) cancels what a bot was about to do; it thinks again.

>>> from tray.table.memory import MemoryJournal
>>> from tray.table.table import Table
>>> table = Table(MemoryJournal.create(None, "toss-up", ["Ana", "Bot"], {}, None))
>>> seats = BotSeats(table, pause_s=1.0)
>>> table.roll(["toss:red"] * 10, t=0.0)                 # Ana busts: the bot's turn
True
>>> seats.tick(0.1); table.message.text
'Throw all 10 dice for Bot'
"""

from __future__ import annotations

import random

from tray.rules.bots import Bot, policy_of_name
from tray.table.choices import choice_label, classify_decision
from tray.table.moments import Message

BOT_PAUSE_S = 1.5  # seconds a bot's choice stays on screen before it is sent


class BotSeats:
    """The bot seats of one table (none when every player is a person).

    ``rng``: the bots' random choices (the ``random`` policy); seeded in tests.
    """

    def __init__(self, table, pause_s: float = BOT_PAUSE_S, rng: random.Random | None = None):
        self.table = table
        self.pause_s = pause_s
        self.rng = rng or random.Random()
        game_id = table.journal.game.GAME_ID
        self.bots = {
            seat: Bot(game_id, policy)
            for seat, name in enumerate(table.players)
            if (policy := policy_of_name(name)) is not None
        }
        self.seen = None  # the table log length the bots last thought about
        self.pending: list[tuple[int, dict, float]] = []  # (seat, event, when to send)

    def __bool__(self) -> bool:
        return bool(self.bots)

    def tick(self, t: float) -> None:
        """Think when the game has changed; send what is due."""
        table = self.table
        if not self.bots or table.menu is not None or table.correction is not None:
            return
        e = table.expect()
        if e.finished:
            return
        key = len(table.log)
        if key != self.seen:
            self.seen = key
            self.pending = []
            self._think(e, t)
        for item in list(self.pending):
            seat, event, due = item
            if t >= due:
                self.pending.remove(item)
                self._send(seat, event, t)
                if len(table.log) != key:  # the game moved on: think again next tick
                    return

    def _think(self, e, t: float) -> None:
        table = self.table
        said = []
        for d in e.decisions:
            bot = self.bots.get(d.player)
            if bot is None or d.player in table.secret:
                continue
            event = bot.decide(table.state, d, self.rng)
            if event is None:
                continue
            self.pending.append((d.player, event, t + self.pause_s))
            name = table.name(d.player)
            if d.secret:
                said.append(f"{name} has chosen")
            else:
                said.append(f"{name}: {_label(e, d, event, table.players)}")
        spec = e.roll
        if not said and spec is not None and spec.roller in self.bots:
            ids = self.bots[spec.roller].dice(table.state, spec, self.rng)
            said.append(f"Throw {_dice_words(ids)} for {table.name(spec.roller)}")
        if said:
            table.message = Message("; ".join(said), "info", t + self.pause_s + 4)

    def _send(self, seat: int, event: dict, t: float) -> None:
        table = self.table
        d = table.decision_of(seat)
        if d is None:
            return
        kind = classify_decision(d)
        if kind == "secret":
            table.secret[seat] = event["action"]
            if all(s.player in table.secret for s in table.secret_decisions()):
                table.start_countdown(t)
        elif kind == "single":
            table.press(seat, t)
        else:
            table.send(dict(event), t)


def _label(e, d, event: dict, players: list[str]) -> str:
    """The screen's words for a choice (the game's own labels when it gives them)."""
    labels = e.detail.get("labels") if isinstance(e.detail, dict) else None
    if labels and event in d.choices and len(labels) == len(d.choices):
        return labels[list(d.choices).index(event)]
    return choice_label(event, players)


def _dice_words(ids: list[str]) -> str:
    if len(set(ids)) == 1:
        return (
            f"all {len(ids)} dice"
            if len(ids) > 2
            else ("both dice" if len(ids) == 2 else "the die")
        )
    return ", ".join(ids[:-1]) + " and " + ids[-1]
