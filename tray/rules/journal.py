"""The game journal: every event of a game in a JSON Lines file, durable before it is shown.

A journal is the only record of a game: the state on screen is always the state the journal
replays to. Line 1 is the header, every further line one record (the format is documented in
``tray/JOURNAL.md``)::

    {"type": "new_game", "v": 1, "game": "bank", "players": ["Ann", "Ben"], "options": {...},
     "layout": {"d6": ["1", "2", "3", "4", "5", "6"]}, "time": "2026-11-21T23:40:00+00:00"}
    {"type": "roll", "dice": ["d6:3", "d6:4"]}
    {"type": "action", "player": 1, "action": "bank"}
    {"type": "correct", "event": 1, "dice": ["d6:3", "d6:5"]}
    {"type": "undo"}

Engine events (``roll``, ``action``) are numbered 1, 2, 3... in the order they take effect;
``undo`` takes back the last one, ``correct`` replaces the dice of roll number N. ``append``,
``undo`` and ``correct`` first compute the new state (a RuleError leaves file and journal
unchanged), then write the line, flush and fsync it, and only then return the new state, so
what the screen shows has always reached the disk.

A journal cut off in the middle of its last line (power lost while writing) opens at its last
whole record, and the next write replaces the partial line. Any other damage raises
JournalError naming the file and the line.

Example::

    >>> import tempfile, pathlib
    >>> from tray.rules.engine import roll, action
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "game.jsonl"
    >>> j = Journal.create(path, "bank", ["Ann", "Ben"], {"rounds": 10},
    ...                    {"d6": ["1", "2", "3", "4", "5", "6"]})
    >>> for dice in (("d6:1", "d6:2"), ("d6:2", "d6:2"), ("d6:5", "d6:6")):
    ...     state = j.append(roll(*dice))
    >>> j.append(action(0, "bank"))["scores"]
    [18, 0]
    >>> j.correct(3, ["d6:5", "d6:5"])["scores"]        # roll 3 was misread: it showed 5 + 5
    [17, 0]
    >>> j.undo()["scores"]                               # Ann's bank taken back
    [0, 0]
    >>> replay(path) == j.state
    True
"""

from __future__ import annotations

import argparse
import copy
import datetime as _dt
import json
import os
import sys
from pathlib import Path
from typing import Any

from tray.rules import games
from tray.rules.engine import Expect, RuleError, parse_die

VERSION = 1
ENGINE_EVENTS = ("roll", "action")


class JournalError(ValueError):
    """A journal that cannot be read back: the message names the file and the line to look at.

    ``path`` and ``line`` (1-based, or None when the whole file is at fault) are kept too.

    >>> err = JournalError("not a valid JSON line", "game.jsonl", 7)
    >>> str(err), err.line
    ('game.jsonl, line 7: not a valid JSON line', 7)
    """

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None):
        where = str(path) if path is not None else "journal"
        if line is not None:
            where += f", line {line}"
        super().__init__(f"{where}: {message}")
        self.path = None if path is None else Path(path)
        self.line = line


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat()


def _dump(record: dict) -> bytes:
    return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")


def _plain(event: Any) -> dict:
    """The event as it reads back from the file (tuples become lists, and so on)."""
    if not isinstance(event, dict):
        raise RuleError("an event must be a roll or an action")
    try:
        return json.loads(json.dumps(event, ensure_ascii=False))
    except (TypeError, ValueError) as exc:
        raise TypeError(f"an event must be plain JSON data (dicts, lists, text, numbers): {exc}")


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot sync a directory; the file itself is synced
    finally:
        os.close(fd)


def describe(event: dict, players: list[str] | None = None) -> str:
    """A few words for an event, as messages and logs name it.

    >>> describe({"type": "roll", "dice": ["d6:3", "d6:4"]})
    'roll d6:3 d6:4'
    >>> describe({"type": "action", "player": 1, "action": "bank"}, ["Ann", "Ben"])
    'Ben: bank'
    >>> describe({"type": "action", "player": -1, "action": "end_game"})
    'table: end_game'
    """
    kind = event.get("type")
    if kind == "roll":
        return "roll " + " ".join(str(d) for d in event.get("dice", []))
    if kind == "action":
        p = event.get("player")
        if p == -1:
            who = "table"
        elif players and isinstance(p, int) and 0 <= p < len(players):
            who = players[p]
        else:
            who = f"player {p}"
        extra = {k: v for k, v in event.items() if k not in ("type", "player", "action")}
        text = f"{who}: {event.get('action')}"
        if extra:
            text += " " + json.dumps(extra, ensure_ascii=False, sort_keys=True)
        return text
    if kind == "correct":
        return f"correct roll {event.get('event')} to " + " ".join(map(str, event.get("dice", [])))
    return str(kind)


class Journal:
    """A game and its journal file; every change is on disk before it is returned.

    Make one with ``Journal.create`` (a new game) or ``Journal.open`` (resume a journal)::

        >>> import tempfile, pathlib
        >>> from tray.rules.engine import roll
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "g.jsonl"
        >>> j = Journal.create(path, "bank", ["Ann", "Ben"], {}, None)  # None: shipped dice set
        >>> j.expect().roll.dice
        ('d6', 'd6')
        >>> _ = j.append(roll("d6:6", "d6:1"))
        >>> Journal.open(path).state["total"]
        70
        >>> [e["type"] for e in Journal.open(path).events]
        ['roll']
    """

    def __init__(self, path: Path, header: dict, initial: dict):
        # use create() or open(); this only sets up an empty journal object
        self.path = Path(path)
        self.header = header
        self.game_id: str = header["game"]
        self.game = games.get(self.game_id)
        self._events: list[dict] = []
        self._states: list[dict] = [initial]
        self._size = 0  # byte offset where the next record is written
        self._needs_newline = False
        self.partial_tail = False  # True when open() found (and skipped) a cut-off last line

    # ---------------------------------------------------------------- making and opening

    @classmethod
    def create(cls, path: str | Path, game_id: str, players: list[str],
               options: dict | None = None, layout: dict | None = None, *,
               time: str | None = None) -> Journal:
        """Start a new game in a new journal file (its folder is made if needed).

        ``layout`` None takes the dice set the game ships with. ``time`` (ISO 8601) defaults
        to now; it is informational only. Raises RuleError/ValueError if the game refuses the
        players or options, FileExistsError if ``path`` exists; nothing is written then.
        """
        path = Path(path)
        engine = games.get(game_id)
        if layout is None:
            from vision.dicesets import load  # the shipped layout; vision/ knows no games

            layout = load(engine.DICE_SET).layout()
        options = dict(options or {})
        initial = engine.new_game(list(players), layout, options)
        # store the options as resolved by the game (defaults filled in) when the game takes
        # them back unchanged, so a later change of a default does not change an old game
        # (and the player names as the game wrote them, e.g. trimmed)
        resolved, names = initial.get("options"), initial.get("players")
        if isinstance(resolved, dict) and isinstance(names, list):
            try:
                if engine.new_game(list(names), layout, copy.deepcopy(resolved)) == initial:
                    options, players = copy.deepcopy(resolved), list(names)
            except (RuleError, ValueError, TypeError, KeyError):
                pass
        header = {"type": "new_game", "v": VERSION, "game": game_id, "players": list(players),
                  "options": options, "layout": layout, "time": time or _now()}
        data = _dump(header)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with open(path, "xb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        except FileExistsError:
            raise FileExistsError(
                f"{path} already exists: open it to resume that game, or choose another file name"
            ) from None
        _fsync_dir(path.parent)
        j = cls(path, json.loads(data), engine.new_game(list(players), layout, options))
        j._size = len(data)
        return j

    @classmethod
    def open(cls, path: str | Path) -> Journal:
        """Read a journal back and rebuild its state; JournalError (file and line) if damaged.

        The file is not changed, even if its last line was cut off: the next write does that.
        """
        path = Path(path)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise JournalError("no such file: check the name of the journal", path) from None
        except OSError as exc:
            raise JournalError(f"cannot read the file ({exc.strerror})", path) from None
        if not data.strip(b"\0 \t\r\n"):
            raise JournalError("the file is empty: it is not a dicetray journal (no header)",
                               path, 1)
        lines = data.split(b"\n")
        # lines[-1] is what follows the last newline: empty, or a line whose write never ended
        journal: Journal | None = None
        offset = 0
        for number, raw in enumerate(lines, start=1):
            is_tail = number == len(lines)
            start, offset = offset, offset + len(raw) + 1
            if is_tail and not raw:
                break
            if not raw.strip():
                continue  # a blank line carries nothing
            try:
                record = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as exc:
                if is_tail:  # cut off while being written: resume from the line before
                    if journal is None:
                        raise JournalError(
                            "the header line is incomplete (the file was cut off while the game "
                            "was being created): start the game again", path, number) from None
                    journal.partial_tail = True
                    journal._size = start
                    return journal
                why = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8 text"
                raise JournalError(
                    f"not a valid JSON line ({why}): the journal is damaged; repair or remove "
                    "this line by hand", path, number) from None
            if journal is None:
                journal = cls._from_header(record, path, number)
            else:
                journal._replay_record(record, path, number)
            journal._size = start + len(raw) + (0 if is_tail else 1)
            journal._needs_newline = is_tail
        assert journal is not None
        return journal

    @classmethod
    def _from_header(cls, record: Any, path: Path, number: int) -> Journal:
        if not isinstance(record, dict) or record.get("type") != "new_game":
            raise JournalError(
                "no new_game header: a journal starts with {\"type\": \"new_game\", ...}; "
                "this is not a dicetray journal", path, number)
        if record.get("v") != VERSION:
            raise JournalError(
                f"journal format version {record.get('v')!r} is not one this dicetray reads "
                f"(it reads version {VERSION}): use the dicetray that wrote it", path, number)
        for key, kind in (("game", str), ("players", list), ("options", dict), ("layout", dict)):
            if not isinstance(record.get(key), kind):
                raise JournalError(f"the header has no valid {key!r}", path, number)
        try:
            engine = games.get(record["game"])
        except ValueError as exc:
            raise JournalError(str(exc), path, number) from None
        try:
            initial = engine.new_game(list(record["players"]), record["layout"],
                                      copy.deepcopy(record["options"]))
        except (RuleError, ValueError, TypeError) as exc:
            raise JournalError(f"the game cannot start: {exc}", path, number) from None
        return cls(path, record, initial)

    def _replay_record(self, record: Any, path: Path, number: int) -> None:
        if not isinstance(record, dict):
            raise JournalError("a journal line must be a JSON object", path, number)
        kind = record.get("type")
        try:
            if kind in ENGINE_EVENTS:
                self._events.append(record)
                try:
                    self._states.append(self.game.apply(self._states[-1], record))
                except BaseException:
                    self._events.pop()
                    raise
            elif kind == "undo":
                if not self._events:
                    raise JournalError("an undo with nothing left to undo: the journal is "
                                       "damaged; remove this line by hand", path, number)
                self._take_back()
            elif kind == "correct":
                self._events, self._states = self._corrected(record.get("event"),
                                                             record.get("dice"))
            elif kind == "new_game":
                raise JournalError("a second new_game header: one journal holds one game",
                                   path, number)
            else:
                raise JournalError(
                    f"unknown event type {kind!r}: a journal line is a roll, an action, "
                    "a correct or an undo", path, number)
        except RuleError as exc:
            raise JournalError(
                f"the rules refuse this {describe(record, self.players)}: {exc}", path, number
            ) from None

    # ---------------------------------------------------------------- what it holds

    @property
    def players(self) -> list[str]:
        """The players' names, in seat order."""
        return list(self.header["players"])

    @property
    def state(self) -> dict:
        """The current state (a copy: changing it changes nothing)."""
        return copy.deepcopy(self._states[-1])

    @property
    def events(self) -> list[dict]:
        """The effective engine events, in order; event number N is ``events[N - 1]``."""
        return copy.deepcopy(self._events)

    @property
    def finished(self) -> bool:
        """True once the game is over."""
        return bool(self._states[-1].get("finished"))

    def expect(self) -> Expect:
        """What the current state waits for (the engine's ``expect``)."""
        return self.game.expect(self._states[-1])

    def summary(self) -> dict:
        """The engine's summary of the current state (what ``dicetray replay --json`` prints)."""
        return self.game.summary(self._states[-1])

    def state_after(self, event_number: int) -> dict:
        """The state right after event ``event_number`` (0: the state before any event)."""
        if not 0 <= event_number <= len(self._events):
            raise IndexError(f"there is no event {event_number}: the journal has "
                             f"{len(self._events)} events")
        return copy.deepcopy(self._states[event_number])

    def last_roll(self) -> int | None:
        """The number of the last effective roll event (for ``correct``), or None."""
        for i in range(len(self._events), 0, -1):
            if self._events[i - 1].get("type") == "roll":
                return i
        return None

    # ---------------------------------------------------------------- changing it

    def append(self, event: dict) -> dict:
        """Apply an engine event and write it; returns the new state once it is on disk.

        A RuleError from the rules leaves the journal and the file unchanged. ``{"type":
        "undo"}`` and ``{"type": "correct", ...}`` records are passed to ``undo``/``correct``.
        """
        event = _plain(event)
        if event.get("type") == "undo":
            return self.undo()
        if event.get("type") == "correct":
            return self.correct(event.get("event"), event.get("dice"))
        if event.get("type") not in ENGINE_EVENTS:
            raise RuleError(f"cannot play an event of type {event.get('type')!r}: "
                            "expected a roll or an action")
        state = self.game.apply(self._states[-1], event)
        self._write(event)
        self._events.append(event)
        self._states.append(state)
        return self.state

    def undo(self) -> dict:
        """Take back the last effective engine event; returns the state before it.

        RuleError if there is nothing to undo.
        """
        if not self._events:
            raise RuleError("Nothing to undo: no roll or action has been played yet")
        self._write({"type": "undo"})
        self._take_back()
        return self.state

    def correct(self, event_number: int, dice: list[str]) -> dict:
        """Replace the dice of roll event ``event_number`` (1-based, see ``events``) and
        recompute everything after it; returns the new current state.

        RuleError (nothing written) if the event is not a roll, the new dice are not a roll it
        accepts, or a later event would no longer be allowed (the message names it).
        """
        events, states = self._corrected(event_number, dice)
        self._write({"type": "correct", "event": event_number, "dice": list(dice)})
        self._events, self._states = events, states
        return self.state

    # ---------------------------------------------------------------- inside

    def _take_back(self) -> None:
        if not self._events:
            raise RuleError("an undo with nothing left to undo")
        self._events.pop()
        self._states.pop()

    def _corrected(self, number: Any, dice: Any) -> tuple[list[dict], list[dict]]:
        if type(number) is not int or not 1 <= number <= len(self._events):
            raise RuleError(f"There is no event {number!r} to correct: events are numbered "
                            f"1 to {len(self._events)}")
        old = self._events[number - 1]
        if old.get("type") != "roll":
            raise RuleError(f"Event {number} ({describe(old, self.players)}) is not a roll: "
                            "only the dice of a roll can be corrected")
        if not isinstance(dice, (list, tuple)):
            raise RuleError("a correction needs the list of dice, like [\"d6:3\", \"d6:5\"]")
        for d in dice:
            parse_die(d)
        events = [*self._events[: number - 1], {**old, "dice": list(dice)},
                  *self._events[number:]]
        states = self._states[:number]
        for i in range(number - 1, len(events)):
            try:
                states.append(self.game.apply(states[-1], events[i]))
            except RuleError as exc:
                if i == number - 1:
                    raise RuleError(f"Cannot correct event {number} to "
                                    f"{' '.join(dice)}: {exc}") from None
                raise RuleError(
                    f"Cannot correct event {number}: with {' '.join(dice)}, the later event "
                    f"{i + 1} ({describe(events[i], self.players)}) is no longer allowed "
                    f"({exc}). Undo back to event {number} first, then correct it."
                ) from None
        return events, states

    def _write(self, record: dict) -> None:
        data = _dump(record)
        if self._needs_newline:
            data = b"\n" + data
        with open(self.path, "r+b") as f:
            f.seek(self._size)
            f.write(data)
            f.truncate()  # drops a partial line left by a power cut or a failed write
            f.flush()
            os.fsync(f.fileno())
        self._size += len(data)
        self._needs_newline = False
        self.partial_tail = False


# -------------------------------------------------------------------- module functions


def replay(path: str | Path) -> dict:
    """The state a journal file leads to (JournalError if it is damaged)."""
    return Journal.open(path).state


def find_unfinished(directory: str | Path, limit: int | None = 10) -> Path | None:
    """The newest journal (``*.jsonl``, by modification time) in ``directory`` whose game is
    not finished, for "resume the unfinished game?"; None if there is none.

    Only the ``limit`` newest journals are read (None: all), since each is replayed to see
    whether its game is over and a long-kept journal folder would make start-up slow; an
    unfinished game older than that many newer games is not worth offering. Journals that
    cannot be read are passed over.
    """
    directory = Path(directory)
    if not directory.is_dir():
        return None
    found = []
    for p in directory.glob("*.jsonl"):
        try:
            found.append((p.stat().st_mtime, p.name, p))
        except OSError:
            continue
    newest = sorted(found, reverse=True)
    for _, _, p in newest if limit is None else newest[:limit]:
        try:
            if not Journal.open(p).finished:
                return p
        except (JournalError, ValueError):
            continue
    return None


def journal_path(directory: str | Path, game_id: str, when: _dt.datetime | None = None) -> Path:
    """A fresh file name for a new game's journal: ``DIR/2026-11-21_23-40-05_bank.jsonl``."""
    when = when or _dt.datetime.now(_dt.UTC)
    base = Path(directory) / f"{when.strftime('%Y-%m-%d_%H-%M-%S')}_{game_id}"
    path, n = base.with_suffix(".jsonl"), 2
    while path.exists():
        path, n = Path(f"{base}-{n}.jsonl"), n + 1
    return path


def scoreboard(summary: dict, title: str | None = None) -> str:
    """A readable scoreboard from a game's ``summary``."""
    players = summary.get("players", [])
    width = max([len(p["name"]) for p in players] + [4])
    status = "finished" if summary.get("finished") else f"{summary.get('active')} to play"
    lines = [f"{title or summary.get('game')}: round {summary.get('round')}, {status}"]
    win = summary.get("winner")
    winners = set(win if isinstance(win, list) else [win] if win else [])
    for p in players:
        mark = "  <- winner" if p["name"] in winners else ""
        lines.append(f"  {p['name']:<{width}}  {p['score']:>6}{mark}")
    if summary.get("finished"):
        if isinstance(win, list):
            lines.append(f"Shared win: {', '.join(win)}")
        elif win:
            lines.append(f"Winner: {win}")
    return "\n".join(lines)


def main_replay(argv: list[str]) -> int:
    """``dicetray replay JOURNAL [--json] [--events]``: print the state a journal leads to."""
    parser = argparse.ArgumentParser(
        prog="dicetray replay",
        description="Replay a game journal and print where the game stands.")
    parser.add_argument("journal", help="a game journal (.jsonl)")
    parser.add_argument("--json", action="store_true",
                        help="print the game summary as JSON instead of a scoreboard")
    parser.add_argument("--events", action="store_true",
                        help="also list every effective event with the state after it")
    args = parser.parse_args(argv)
    try:
        j = Journal.open(args.journal)
    except JournalError as exc:
        print(f"dicetray replay: {exc}", file=sys.stderr)
        return 1
    summary = j.summary()
    if args.events:
        from tray.rules.playthrough import format_playthrough

        print(format_playthrough(j.game_id, j.header, j.events))
    if args.json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        if j.partial_tail:
            print("(the last line of the journal was cut off and is not counted)")
        print(scoreboard(summary, getattr(j.game, "TITLE", j.game_id)))
    return 0
