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

import contextlib
import copy
import datetime as _dt
import json
import os
import re
import shutil
import zlib
from pathlib import Path
from typing import Any

from tray.rules import games
from tray.rules.engine import Expect, RuleError, describe, parse_die, short

VERSION = 1
ENGINE_EVENTS = ("roll", "action")
MAX_LINE = 1 << 20  # no journal line is longer (1 MiB); a longer one is damage
MAX_MESSAGE = 300  # error messages quote at most this much
_RECORD_KEYS = {"undo": {"type"}, "correct": {"type", "event", "dice"}}
_CRC = re.compile(rb', "crc": "([0-9a-f]{8})"\}$')


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
        if len(message) > MAX_MESSAGE:  # keep the start (what) and the end (the fix)
            message = message[: MAX_MESSAGE - 103] + " ... " + message[-100:]
        super().__init__(f"{where}: {message}")
        self.path = None if path is None else Path(path)
        self.line = line
        self.kept: int | None = None  # engine events good before the damage (None: no salvage)


class JournalWriteError(OSError):
    """The journal file could not be written (a full disk, a card gone read-only): nothing of
    the new event was kept, and everything written before it is; the message says what to do.
    """


def _dump(record: dict) -> bytes:
    """One journal line: the record as JSON with the CRC-32 of that JSON as its last key.

    >>> _dump({"type": "undo"})
    b'{"type": "undo", "crc": "d0e98cb6"}\\n'
    """
    body = json.dumps(record, ensure_ascii=False, allow_nan=False).encode("utf-8")
    crc = zlib.crc32(body)
    return body[:-1] + b', "crc": "%08x"}\n' % crc


def _checked_body(raw: bytes, checksummed: bool) -> bytes:
    """The JSON of one line once its checksum is verified (ValueError saying what is wrong).
    Lines of a journal written before checksums (``checksummed`` False) carry none."""
    m = _CRC.search(raw)
    if m is None:
        if checksummed:
            raise ValueError("the line has no checksum")
        return raw
    body = raw[: m.start()] + b"}"
    if zlib.crc32(body) != int(m.group(1), 16):
        raise ValueError(
            "its checksum does not match: the line was changed after it was "
            "written (a damaged card or a hand edit)"
        )
    return body


def _utf16_error(path: Path, number: int) -> JournalError:
    return JournalError(
        "the file is UTF-16 text (saved by an editor?): a journal is UTF-8; save it again as UTF-8",
        path,
        number,
    )


def _too_deep(what: str, path: Path, number: int) -> JournalError:
    return JournalError(
        f"the line nests {what} (no journal line does): the journal is damaged", path, number
    )


def _without_bom(raw: bytes, start: int, path: Path) -> tuple[bytes, int]:
    """The first line without the UTF-8 byte order mark an editor may have added (harmless),
    and where its text starts; a UTF-16 one is refused."""
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise _utf16_error(path, 1)
    if raw.startswith(b"\xef\xbb\xbf"):
        return raw[3:], start + 3
    return raw, start


def _line_of(raw: bytes) -> tuple[bytes, bool]:
    """The text of a line read from the file, without its line end (LF or CRLF, as an editor
    on Windows saves), and whether it had one (a line without was cut off).

    >>> _line_of(b'{"type": "undo"}\\r\\n')
    (b'{"type": "undo"}', True)
    """
    ended = raw.endswith(b"\n")
    line = raw[:-1] if ended else raw
    if line.endswith(b"\r"):  # CRLF line ends (saved by an editor on Windows)
        line = line[:-1]
    return line, ended


def _plain(event: Any) -> dict:
    """The event as it reads back from the file (tuples become lists, and so on)."""
    if not isinstance(event, dict):
        raise RuleError("an event must be a roll or an action")
    try:
        return json.loads(json.dumps(event, ensure_ascii=False, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as exc:
        raise RuleError(
            f"an event must be plain JSON data (names, whole numbers, lists): {short(str(exc))}"
        ) from None


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


class Journal:
    """A game and its journal file; every change is on disk before it is returned.

    Make one with ``Journal.create`` (a new game) or ``Journal.open`` (resume a journal)::

        >>> import tempfile, pathlib
        >>> from tray.rules.engine import roll
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "g.jsonl"
        >>> d6 = {"d6": ["1", "2", "3", "4", "5", "6"]}  # the layout: each die's faces
        >>> j = Journal.create(path, "bank", ["Ann", "Ben"], {}, d6)
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
        self.checksummed = True  # lines carry a CRC (journals written before that do not)
        self.damage: JournalError | None = None  # open(salvage=True): what stopped the reading

    # ---------------------------------------------------------------- making and opening

    @classmethod
    def create(
        cls,
        path: str | Path,
        game_id: str,
        players: list[str],
        options: dict | None,
        layout: dict,
        *,
        time: str | None = None,
    ) -> Journal:
        """Start a new game in a new journal file (its folder is made if needed).

        ``layout``: which faces each die of the game's dice set carries (the table gives the
        shipped one, ``tray.layouts.default_layout``; the rules read no dice-set file).
        ``time`` (ISO 8601, when the game began) is kept in the header when given; it is
        informational only (the rules read no clock). Raises RuleError/ValueError if the game
        refuses the players, options or layout, FileExistsError if ``path`` exists; nothing is
        written then.
        """
        path = Path(path)
        engine = games.get(game_id)
        if not isinstance(layout, dict):
            raise ValueError(f"a game needs its dice layout (a dict of die: faces), not {layout!r}")
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
        header = {
            "type": "new_game",
            "v": VERSION,
            "game": game_id,
            "players": list(players),
            "options": options,
            "layout": layout,
            **({"time": time} if time else {}),
        }
        try:
            data = _dump(header)
        except ValueError as exc:  # NaN or infinity in the options
            raise ValueError(f"the game options must be plain numbers and names: {exc}") from None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            raise JournalWriteError(
                f"cannot make the journal folder {path.parent}: a file of "
                "that name is in the way; move it, or choose another "
                "journal folder"
            ) from None
        except OSError as exc:
            raise JournalWriteError(
                f"cannot make the journal folder {path.parent} "
                f"({exc.strerror}): choose a folder you can write"
            ) from None
        try:
            with open(path, "xb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        except FileExistsError:
            raise FileExistsError(
                f"{path} already exists: open it to resume that game, or choose another file name"
            ) from None
        except OSError as exc:
            with contextlib.suppress(OSError):  # a header not on disk whole is no journal
                path.unlink()
            raise JournalWriteError(
                f"cannot write the new journal {path} ({exc.strerror}): "
                "free some space or choose another journal folder"
            ) from None
        _fsync_dir(path.parent)
        j = cls(
            path,
            json.loads(_checked_body(data[:-1], True)),
            engine.new_game(list(players), layout, options),
        )
        j._size = len(data)
        return j

    @classmethod
    def open(cls, path: str | Path, salvage: bool = False) -> Journal:
        """Read a journal back and rebuild its state; JournalError (file and line) if damaged.

        The file is read line by line (a line longer than ``MAX_LINE`` is refused unread) and
        each line's checksum is checked. A damaged line raises JournalError whose ``kept``
        says how many engine events before it are good; ``salvage=True`` returns the journal
        of that good part instead, with ``damage`` set to the error: its next write first
        copies the whole file to ``NAME.damaged`` and then continues after the good part.
        The file is not changed by opening, even if its last line was cut off.
        """
        path = Path(path)
        try:
            f = open(path, "rb")  # noqa: SIM115 - closed below, after telling its errors apart
        except FileNotFoundError:
            raise JournalError("no such file: check the name of the journal", path) from None
        except IsADirectoryError:
            raise JournalError(
                "this is a folder: give the journal file (.jsonl) in it", path
            ) from None
        except OSError as exc:
            raise JournalError(f"cannot read the file ({exc.strerror})", path) from None
        try:
            with f:
                return cls._read(f, path, salvage)
        except OSError as exc:
            raise JournalError(
                f"cannot read the file ({exc.strerror}): copy it off the card and try again", path
            ) from None

    @classmethod
    def _read(cls, f, path: Path, salvage: bool) -> Journal:
        journal: Journal | None = None
        offset = number = 0
        while raw := f.readline(MAX_LINE + 1):
            number += 1
            start, offset = offset, offset + len(raw)
            if number == 1:
                raw, start = _without_bom(raw, start, path)
            line, ended = _line_of(raw)
            if not ended and len(raw) > MAX_LINE:
                err = JournalError(
                    f"the line is longer than {MAX_LINE} bytes (no journal line "
                    "is): the journal is damaged after this point",
                    path,
                    number,
                )
                return cls._damaged(journal, err, start, salvage)
            if not line.strip(b"\0 \t\r"):
                if journal is not None and not ended and b"\0" in line:
                    journal.partial_tail = True  # NUL bytes a crash left where a line began
                continue  # a blank line carries nothing
            if journal is None and b"\0" in line[:4]:
                raise _utf16_error(path, number)
            try:
                body = _checked_body(line, journal.checksummed if journal else False)
                record = json.loads(body.decode("utf-8"))
            except RecursionError:
                err = _too_deep("lists or objects far too deeply", path, number)
                return cls._damaged(journal, err, start, salvage)
            except (UnicodeDecodeError, ValueError) as exc:
                return cls._unreadable(journal, exc, ended, start, path, number, salvage)
            if journal is None:
                journal = cls._from_header(record, path, number)
                journal.checksummed = _CRC.search(line) is not None
            else:
                try:
                    journal._replay_record(record, path, number)
                except JournalError as err:
                    return cls._damaged(journal, err, start, salvage)
                except RecursionError:
                    err = _too_deep("far too deeply", path, number)
                    return cls._damaged(journal, err, start, salvage)
            journal._size = offset
            journal._needs_newline = not ended
        if journal is None:
            raise JournalError(
                "the file is empty: it is not a dicetray journal (no header)", path, 1
            )
        return journal

    @classmethod
    def _unreadable(
        cls,
        journal: Journal | None,
        exc: ValueError,
        ended: bool,
        start: int,
        path: Path,
        number: int,
        salvage: bool,
    ) -> Journal:
        """What reading becomes at a line that is not JSON (or not UTF-8, or fails its check)."""
        if not ended:  # cut off while being written: resume from the line before
            if journal is None:
                raise JournalError(
                    "the header line is incomplete (the file was cut off while the game "
                    "was being created): start the game again",
                    path,
                    number,
                ) from None
            journal.partial_tail = True
            journal._size = start
            journal._needs_newline = False
            return journal
        why = (
            exc.msg
            if isinstance(exc, json.JSONDecodeError)
            else "not UTF-8 text"
            if isinstance(exc, UnicodeDecodeError)
            else str(exc)
        )
        err = JournalError(
            f"not a valid journal line ({why}): the journal is damaged", path, number
        )
        if journal is None:
            raise err from None
        return cls._damaged(journal, err, start, salvage)

    @staticmethod
    def _damaged(journal: Journal | None, err: JournalError, start: int, salvage: bool) -> Journal:
        if journal is None:
            raise err
        err.kept = len(journal._events)
        if not salvage:
            name = err.path.name if err.path else "NAME"
            more = (
                f". The {err.kept} events before it are good: `dicetray play` offers to "
                f"resume from them (keeping the file as {name}.damaged)"
            )
            err.args = (err.args[0] + more,)
            raise err
        journal.damage = err
        journal._size = start
        journal._needs_newline = False
        return journal

    @classmethod
    def _from_header(cls, record: Any, path: Path, number: int) -> Journal:
        if not isinstance(record, dict) or record.get("type") != "new_game":
            raise JournalError(
                'no new_game header: a journal starts with {"type": "new_game", ...}; '
                "this is not a dicetray journal",
                path,
                number,
            )
        if record.get("v") != VERSION:
            raise JournalError(
                f"journal format version {record.get('v')!r} is not one this dicetray reads "
                f"(it reads version {VERSION}): use the dicetray that wrote it",
                path,
                number,
            )
        for key, kind in (("game", str), ("players", list), ("options", dict), ("layout", dict)):
            if not isinstance(record.get(key), kind):
                raise JournalError(f"the header has no valid {key!r}", path, number)
        try:
            engine = games.get(record["game"])
        except ValueError as exc:
            raise JournalError(str(exc), path, number) from None
        try:
            initial = engine.new_game(
                list(record["players"]), record["layout"], copy.deepcopy(record["options"])
            )
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
            elif kind in _RECORD_KEYS and set(record) - _RECORD_KEYS[kind]:
                extra = sorted(set(record) - _RECORD_KEYS[kind])
                raise JournalError(
                    f"{kind} takes no key {short(repr(extra[0]), 40)}: the journal is damaged",
                    path,
                    number,
                )
            elif kind == "undo":
                if not self._events:
                    raise JournalError(
                        "an undo with nothing left to undo: the journal is "
                        "damaged; remove this line by hand",
                        path,
                        number,
                    )
                self._take_back()
            elif kind == "correct":
                self._events, self._states = self._corrected(
                    record.get("event"), record.get("dice")
                )
            elif kind == "new_game":
                raise JournalError(
                    "a second new_game header: one journal holds one game", path, number
                )
            else:
                raise JournalError(
                    f"unknown event type {short(repr(kind), 40)}: a journal line is a roll, an "
                    "action, a correct or an undo",
                    path,
                    number,
                )
        except RuleError as exc:
            raise JournalError(
                f"the rules refuse this {describe(record, self.players)}: {short(str(exc), 120)}",
                path,
                number,
            ) from None
        except (TypeError, KeyError, IndexError) as exc:  # a malformed record the game choked on
            raise JournalError(
                f"cannot apply this {describe(record, self.players)} "
                f"({type(exc).__name__}): the journal is damaged",
                path,
                number,
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
            raise IndexError(
                f"there is no event {event_number}: the journal has {len(self._events)} events"
            )
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
            raise RuleError(
                f"cannot play an event of type {event.get('type')!r}: expected a roll or an action"
            )
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
            raise RuleError(
                f"There is no event {number!r} to correct: events are numbered "
                f"1 to {len(self._events)}"
            )
        old = self._events[number - 1]
        if old.get("type") != "roll":
            raise RuleError(
                f"Event {number} ({describe(old, self.players)}) is not a roll: "
                "only the dice of a roll can be corrected"
            )
        if not isinstance(dice, (list, tuple)):
            raise RuleError('a correction needs the list of dice, like ["d6:3", "d6:5"]')
        for d in dice:
            parse_die(d)
        events = [*self._events[: number - 1], {**old, "dice": list(dice)}, *self._events[number:]]
        states = self._states[:number]
        for i in range(number - 1, len(events)):
            try:
                states.append(self.game.apply(states[-1], events[i]))
            except RuleError as exc:
                if i == number - 1:
                    raise RuleError(
                        f"Cannot correct event {number} to {' '.join(dice)}: {exc}"
                    ) from None
                raise RuleError(
                    f"Cannot correct event {number}: with {' '.join(dice)}, the later event "
                    f"{i + 1} ({describe(events[i], self.players)}) is no longer allowed "
                    f"({exc}). Undo back to event {number} first, then correct it."
                ) from None
        return events, states

    def _write(self, record: dict) -> None:
        try:
            data = _dump(record)
        except ValueError as exc:  # NaN or infinity
            raise RuleError(f"an event must hold whole numbers, not {short(str(exc))}") from None
        if self._needs_newline:
            data = b"\n" + data
        try:
            if self.damage is not None:  # keep the damaged file whole before writing over it
                shutil.copyfile(self.path, self.path.with_name(self.path.name + ".damaged"))
            with open(self.path, "r+b") as f:
                f.seek(self._size)
                f.write(data)
                f.truncate()  # drops a partial line left by a power cut or a failed write
                f.flush()
                os.fsync(f.fileno())
        except OSError as exc:
            raise JournalWriteError(
                f"cannot write the journal {self.path} ({exc.strerror or exc}): is the disk "
                "full? Nothing already written is lost; free some space, then do it again"
            ) from None
        self._size += len(data)
        self._needs_newline = False
        self.partial_tail = False
        self.damage = None


# -------------------------------------------------------------------- module functions


def replay(path: str | Path) -> dict:
    """The state a journal file leads to (JournalError if it is damaged)."""
    return Journal.open(path).state


def find_unfinished(directory: str | Path, limit: int | None = 10) -> Path | None:
    """The newest journal (``*.jsonl``, by modification time) in ``directory`` whose game is
    not finished, for "resume the unfinished game?"; None if there is none.

    Only the ``limit`` newest journals are read (None: all), since each is replayed to see
    whether its game is over and a long-kept journal folder would make start-up slow; an
    unfinished game older than that many newer games is not worth offering. A damaged journal
    counts by its good part (``Journal.open(salvage=True)``); journals that cannot be read at
    all are passed over.
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
            if not Journal.open(p, salvage=True).finished:
                return p
        except (JournalError, ValueError):
            continue
    return None


def journal_path(directory: str | Path, game_id: str, when: _dt.datetime) -> Path:
    """A fresh file name for a new game's journal begun at ``when`` (the table's clock):
    ``DIR/2026-11-21_23-40-05_bank.jsonl``."""
    base = Path(directory) / f"{when.strftime('%Y-%m-%d_%H-%M-%S')}_{game_id}"
    path, n = base.with_suffix(".jsonl"), 2
    while path.exists():
        path, n = Path(f"{base}-{n}.jsonl"), n + 1
    return path
