"""Simulated players for the demo: they throw the dice the game asks for on the simulated tray
and answer with button presses through the same queue and mapping as people, fix dice the
camera misread as a person at the table would (they know the truth), and, with
``buttons_only``, work the start screen, the table menu and the end screen with their buttons
too (never a key, never a direct call a person could not make).

Decisions come from ``tray.playthrough.choose`` (the seeded random player) or the game's
suggested default; table-level actions ("end game early") are never taken.

>>> sim = SimPlayers(session, tray, random.Random(0), print)       # doctest: +SKIP
>>> sim.act(t=0.0)                                                 # doctest: +SKIP
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

from tray import playthrough
from tray.app.session import Session
from tray.table.presses import menu_plan, press_plan


class SimPlayers:
    """Simulated players for the demo: they throw the dice the game asks for on the simulated
    tray, answer decisions with button presses through the same queue and mapping as people,
    and fix dice the camera misread, as a person at the table would (they know the truth).

    Decisions come from ``tray.playthrough.choose`` (the seeded random player) or the game's
    suggested default; table-level actions ("end game early") are never taken.

    >>> sim = SimPlayers(session, tray, random.Random(0), print,
    ...                  buttons_only=True)  # doctest: +SKIP
    >>> sim.act(t=0.0); sim.choose("rematch", t=9.0)  # doctest: +SKIP
    """

    def __init__(
        self,
        session: Session,
        tray,
        rng: random.Random,
        log: Callable[[str], None],
        think_s: float = 0.4,
        give_up_frames: int = 240,
        script: list[dict] | None = None,
        buttons_only: bool = False,
    ):
        self.buttons_only = buttons_only
        self.script = list(script) if script is not None else None
        self.k = 0  # the next scripted event
        self.s = session
        self.tray = tray
        self.rng = rng
        self.log = log
        self.think_s = think_s
        self.give_up_frames = give_up_frames
        self.throwing: list[str] | None = None  # the dice thrown and not yet taken
        self.throw_frames = 0
        self.next_act = 0.0
        self.tally_press_at: float | None = None
        self.rethrows = 0
        self.fixed = 0
        self.misread_corrected = 0
        self.misreads: list[tuple[list[str], list[str]]] = []  # (taken as read, thrown)
        self.phones: Callable[[], list[int]] = list  # seats a phone holds: it decides for them
        session.on_settled = self.settled

    # a settled roll from the real vision pipeline
    def settled(self, roll, t: float) -> None:
        table = self.s.table
        if self.throwing is None:
            # nobody threw: dice seen on their way out of the tray, or seen twice
            self.log("  (a roll seen while nobody threw: ignored)")
            return
        thrown = list(self.throwing)
        result = table.settled(roll, t)
        if result == "correcting":
            result = self._fix_unread(roll, thrown, t)
        if result == "taken":
            if self.script is not None:
                self.k += 1
            if Counter(table.last_roll) != Counter(thrown):
                self.misreads.append((list(table.last_roll), list(thrown)))
                self._correct_after(thrown, t)
            self._done_throw(t)
        else:
            # the camera saw another count of dice, or the table refused it: throw again
            self.rethrows += 1
            self.log(
                f"  (vision: {table.message.text if table.message else 'not taken'}; "
                "the dice are thrown again)"
            )
            table.correction = None
            self._done_throw(t)

    def _done_throw(self, t: float) -> None:
        self.throwing = None
        pick = getattr(self.tray, "pick_up", None)
        if callable(pick):
            pick()
        self.next_act = t + self.think_s

    def _fix_unread(self, roll, thrown: list[str], t: float) -> str:
        """Fix each unread die like a person: press the roller's button until the die shows
        the right face, move on, confirm with a long press."""
        table = self.s.table
        c = table.correction
        truth = self._truth_specs(roll, thrown)
        roller = table.expect().roll.roller if table.expect().roll else 0
        for i, slot in enumerate(c.slots):
            if not slot.was_unread:
                continue
            want = truth[i]
            if want not in slot.candidates:
                continue
            c.select(i)
            for _ in range(slot.presses_to(slot.candidates.index(want))):
                table.press(roller, t)
            self.fixed += 1
        return table.press(roller, t, long=True)

    def _truth_specs(self, roll, thrown: list[str]) -> list[str]:
        """The true face of each die of the settled roll: the tray's truth labels matched by box
        centre; failing that, the thrown dice not already read."""
        labels = []
        truth = getattr(self.tray, "truth", None)
        if isinstance(truth, dict):
            labels = list(truth.get("labels") or [])
        left = Counter(thrown)
        for d in roll.dice:
            if d.spec is not None and left[d.spec] > 0:
                left[d.spec] -= 1
        spare = list(left.elements())
        out = []
        for d in roll.dice:
            cx, cy = d.centre
            best = None
            for lab in labels:
                lx, ly = lab["x"] + lab["w"] / 2, lab["y"] + lab["h"] / 2
                dist = (lx - cx) ** 2 + (ly - cy) ** 2
                if best is None or dist < best[0]:
                    best = (dist, f"{lab['die']}:{lab['face']}")
            if best is not None and best[0] < 30**2:
                out.append(best[1])
            elif d.spec is not None:
                out.append(d.spec)
            else:
                out.append(spare.pop(0) if spare else "")
        return out

    def _correct_after(self, thrown: list[str], t: float) -> None:
        """The camera read a die wrong and the roll was taken: correct it after the fact (key
        C; with buttons only, the roll stands as read, as it would at a table without keys)."""
        table = self.s.table
        if self.buttons_only:
            self._correct_by_buttons(thrown, t)
            return
        if table.correct_last(t) != "correcting":
            return
        c = table.correction
        taken = [s.value for s in c.slots]
        left = Counter(thrown)
        for v in taken:
            if left[v] > 0:
                left[v] -= 1
        wrong = [
            i
            for i, v in enumerate(taken)
            if v not in Counter(thrown) or taken[: i + 1].count(v) > Counter(thrown)[v]
        ]
        spare = list(left.elements())
        for i in wrong:
            if not spare:
                break
            want = spare.pop(0)
            slot = c.slots[i]
            if want in slot.candidates:
                slot.index = slot.candidates.index(want)
        res = table.confirm(t)
        self.misread_corrected += 1
        self.log(f"  (a die was misread: the roll was corrected to {', '.join(c.specs())}: {res})")

    def _correct_by_buttons(self, thrown: list[str], t: float) -> None:
        """Correct a misread roll after the fact with a button: the table menu's "Correct the
        last roll" (only a player with nothing to decide can open it), then die by die: short
        presses to the right face, a long press for the next die (on the last: save)."""
        table = self.s.table
        seats = [p for p in range(len(table.players)) if table.decision_of(p) is None]
        plan = menu_plan(table, "correct", seats[0]) if seats else []
        if not plan:
            self.log(
                "  (a die was misread and the roll taken: nobody is free to open the table "
                "menu, so it stands)"
            )
            return
        self._presses(plan, t)
        c = table.correction
        if c is None or c.event is None:
            return
        left = Counter(thrown)
        want = []
        for s in c.slots:  # keep the dice read right, fix the others
            if left[s.value] > 0:
                left[s.value] -= 1
                want.append(s.value)
            else:
                want.append(None)
        spare = list(left.elements())
        for i, s in enumerate(c.slots):
            target = want[i] if want[i] is not None else (spare.pop(0) if spare else s.value)
            steps = 0
            if target in s.candidates:
                steps = s.presses_to(s.candidates.index(target))
            self._presses([(seats[0], False)] * steps + [(seats[0], True)], t)
        self.misread_corrected += 1
        self.log(
            f"  (a die was misread: {table.name(seats[0])} corrected the roll with the table menu)"
        )

    # acting
    def act(self, t: float) -> None:
        """Do the next thing a player would do at time ``t``, if any."""
        table = self.s.table
        e = table.expect()
        if e.finished:
            return
        if self.throwing is not None:
            self.throw_frames += 1
            if self.throw_frames > self.give_up_frames:  # vision never settled: throw again
                self.rethrows += 1
                self.log("  (the roll was not read: the dice are thrown again)")
                self._done_throw(t)
            return
        if t < self.next_act or table.counting_down() or table.correction is not None:
            return
        if self.script is not None:
            self._scripted(t)
            return
        if table.window_decision() is not None:
            self._tally_window(t)
            return
        secret = table.secret_decisions()
        phones = set(self.phones())
        if secret:
            for d in secret:
                if d.player in table.secret or d.player in phones:
                    continue
                want = self._pick(d)
                self._presses(press_plan(table, want), t)
            self.next_act = t + self.think_s
            return
        ev = self._choose(e)
        if ev is None:
            return
        if ev.get("type") == "roll":
            self.throwing = list(ev["dice"])
            self.throw_frames = 0
            self.tray.throw(self.throwing)
            return
        plan = press_plan(table, ev)
        if not plan and self.buttons_only:
            self.log(f"  (no button press sends {ev}: chosen again)")
        elif not plan:  # no button sends it: fall back to the keys' confirm
            table.send(ev, t)
        self._presses(plan, t)
        self.next_act = t + self.think_s

    @property
    def script_done(self) -> bool:
        return self.script is not None and self.k >= len(self.script)

    def _scripted(self, t: float) -> None:
        """Play the next event of the script, the way people at the table would."""
        if self.script_done:
            return
        table = self.s.table
        ev = self.script[self.k]
        if ev.get("type") == "roll":
            self.throwing = list(ev["dice"])
            self.throw_frames = 0
            self.tray.throw(self.throwing)
            return
        if ev.get("player") == -1:
            if ev.get("action") == "window_closed":
                if table.window_decision() is None:  # the table closed it on time
                    self.k += 1
                return
            table.table_action(ev.get("action"), t)
            self.k += 1
            return
        plan = press_plan(table, ev)
        if not plan and table.secret.get(ev.get("player")) != ev.get("action"):
            raise RuntimeError(f"no button press sends {ev} (prompt: {table.expect().prompt})")
        self._presses(plan, t)
        self.k += 1
        self.next_act = t + self.think_s

    def _tally_window(self, t: float) -> None:
        """After a Tally Up!, someone presses first (now and then nobody presses in time)."""
        table = self.s.table
        if self.tally_press_at is None:
            w = table.window_seconds()
            self.tally_press_at = (
                -1.0 if self.rng.random() < 0.15 else t + self.rng.uniform(0.3, max(0.4, w * 0.6))
            )
        if 0 <= self.tally_press_at <= t:
            seat = self.rng.randrange(len(table.players))
            self._presses([(seat, False)], t)
            self.tally_press_at = None
        elif self.tally_press_at < 0 and table.window_decision() is None:
            self.tally_press_at = None

    def _pick(self, d) -> dict:
        if d.default is not None and self.rng.random() < 0.75:
            return dict(d.default)
        return dict(self.rng.choice(d.choices))

    def _choose(self, e) -> dict | None:
        """The next event: a roll or one player's decision (never a table-level action).

        Decisions follow the game's suggested default most of the time (else a random legal
        choice); when the game also waits for a roll (Toss Up!'s stop, Bank's bank), the lone
        decider takes the suggestion often, each of several (Bank) now and then."""
        layout = self.s.table.state.get("layout")
        phones = set(self.phones())
        ds = [d for d in e.decisions if d.player >= 0 and d.choices and d.player not in phones]
        if ds and e.roll is None:
            return self._pick(self.rng.choice(ds))
        if ds:
            p_take = 0.8 if len(ds) == 1 else 0.12
            for d in self.rng.sample(ds, len(ds)):
                if d.default is not None and self.rng.random() < p_take:
                    return dict(d.default)
        if e.roll is not None:
            return playthrough.throw(e.roll, self.rng, layout)
        return None

    def _presses(self, plan, t: float) -> None:
        from hardware.buttons import ButtonPress

        for seat, long in plan:
            if long:
                # a long press: the release arrives after holding
                self.s.table.press(seat, t, long=True)
            else:
                self.s.events.put(ButtonPress(seat, t, "sim"))
            self.s.drain(t)

    def choose(self, key: str, t: float, seat: int = 0) -> bool:
        """Choose ``key`` in the menu on the table (the end screen's "rematch", "another",
        "menu"; the table menu's "undo", "end_game", "leave") with ``seat``'s button."""
        plan = menu_plan(self.s.table, key, seat)
        self._presses(plan, t)
        return bool(plan)
