"""``dicetray play``: the real table, from power-on to the rematch, with the player buttons alone
(keys and touch do the same things).

start screen --Start / Resume--> game --end screen: Rematch--> the same game, same options
     ^                            |   --Another game / Back to the start screen--+
     +----------------------------+---------- table menu: Leave -----------------+
start screen --Quit the table (asked first)--> exit 0

Exit codes (the systemd unit restarts on anything but 0 and 2): 0 = "Quit the table" was
chosen on the start screen (or the window was closed, or ``--max-seconds`` ran out); 2 = a
user's mistake (a bad config file: told in one line on stderr and on the screen); anything
else = a crash. Esc never leaves: it only steps back out of a question or a menu.

>>> from tray.app.config import load_config
>>> run_play(load_config(None), source_spec="sim", headless=True)     # doctest: +SKIP
0
"""

from __future__ import annotations

import argparse
import os
import queue
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from tray.app.config import ConfigError, load_config
from tray.app.session import (
    DEMO_NAMES,
    Session,
    discard,
    led_states,
    make_journal,
    options_of,
    play_key,
    resume_offer,
)
from tray.app.teach_played import teach_played
from tray.history import read_folder
from tray.rules import games
from tray.rules.engine import RuleError
from tray.rules.journal import Journal, journal_path
from tray.screen.display import Display
from tray.screen.history_screen import history_pages
from tray.screen.view import how_to_view, start_view
from tray.table.bot_seats import BotSeats
from tray.table.menu import StartMenu
from tray.table.moments import Message
from tray.table.played import PlayedRolls
from tray.table.presses import MenuButtons, handle_tap, press_length
from tray.table.table import Table
from tray.table.teaching import say_stale

#: how long a bad config's message stays on the screen before dicetray exits 2
ERROR_SHOW_S = 15.0


class Play:
    """The play loop's parts: display, button queue (GPIO buttons and keys 1-0), the start
    menu, the camera and vision. ``clock``: seconds (tests inject one); ``pin_factory``: a
    gpiozero factory (tests: MockFactory; the buttons are then polled each turn);
    ``on_step(play, t)``: called every turn (tests drive the pins there); ``open_source`` /
    ``open_vision``: the camera and (recognizer, settler) for a dice set (tests inject
    scripted ones).

    >>> from tray.app.config import load_config
    >>> Play(load_config(None), source_spec="sim", headless=True).run()      # doctest: +SKIP
    0
    """

    def __init__(
        self,
        cfg,
        source_spec: str | None = None,
        headless: bool = False,
        max_seconds: float | None = None,
        clock: Callable[[], float] | None = None,
        pin_factory=None,
        on_step: Callable | None = None,
        open_source: Callable | None = None,
        open_vision: Callable | None = None,
        taught: str | None = None,
        net=None,
    ):
        from hardware.buttons import KeyboardButtons

        self.cfg = cfg
        self.source_spec = source_spec
        self.taught = taught  # --taught DIR: over the config's [vision] taught
        self.net = net  # tray.net.attach.NetTable: the phone page and the broker, or None
        self.headless = headless
        self.max_seconds = max_seconds
        wall0 = time.monotonic()
        self.now = clock or (lambda: time.monotonic() - wall0)
        self.on_step = on_step
        self.open_source = open_source or self._open_camera
        self.open_vision = open_vision or self._open_vision
        self.display = Display(
            size=tuple(cfg.screen.size),
            fullscreen=cfg.screen.fullscreen,
            headless=headless,
            sound=cfg.screen.sound and not headless,
        )
        self.events: queue.Queue = queue.Queue()
        self.long_s = cfg.pins.hold_ms / 1000.0
        self.buttons = None
        self.releases = False
        self.polled = pin_factory is not None
        if cfg.pins.buttons:
            from hardware.buttons import PlayerButtons

            try:
                self.buttons = PlayerButtons(
                    cfg.pins.buttons,
                    self.events,
                    pin_factory=pin_factory,
                    bounce_ms=cfg.pins.bounce_ms,
                    led_pins=cfg.pins.leds or None,
                    pull_up=cfg.pins.pull_up,
                    releases=True,
                    clock=self.now,
                    poll_interval=None if self.polled else 0.005,
                )
                self.releases = True
            except Exception as exc:  # noqa: BLE001 - GPIO missing off a Pi: keys still work
                print(f"buttons: {exc}; using keys 1-0 instead", file=sys.stderr)
        self.keys = KeyboardButtons(self.events, players=10, clock=self.now)
        self.journal_dir = Path(cfg.journal.directory).expanduser()
        self.names = list(cfg.players) or DEMO_NAMES[:4]
        self.menu = StartMenu(
            self.names, default_game=cfg.game.default, options=dict(cfg.game.options)
        )
        self.source = None
        self.source_set = None
        self.journals: list[Path] = []  # every game played, in order (tests, logs)
        self.played: dict[str, PlayedRolls] = {}  # corrected rolls kept, by dice set
        self.offers: dict[str, str | None] = {}  # the start screen's teach line, by dice set

    # ------------------------------------------------------------------------ parts
    def _open_camera(self, dice_set: str):
        from hardware.camera import open_source
        from hardware.guard import Guarded

        return Guarded(
            open_source(
                self.source_spec or self.cfg.camera.source,
                camera=self.cfg.camera,
                dice_set=dice_set,
            )
        )

    def _open_vision(self, diceset):
        from vision.pipeline import Recognizer
        from vision.settle import Settler
        from vision.taught import TaughtError

        taught = self.taught or self.cfg.vision.taught_for(diceset.id)
        # else taught from the rolls kept in play (not for the simulated tray's dice)
        played = self._played_rolls(diceset)
        if taught is None and played is not None and played.has_taught() and not self._simulated:
            taught = played.taught
        # a calibrated camera: dice are read in the light of the calibration's empty tray
        light = self.cfg.camera.tray_light or None
        try:
            rec = Recognizer(diceset, taught=taught, first_light=light)
        except TaughtError as exc:  # (a folder named by the config was checked at start)
            print(f"dicetray play: {exc}; reading with the shipped models", file=sys.stderr)
            rec = Recognizer(diceset, first_light=light)
        say_stale(rec, "dicetray play")
        return rec, Settler()

    @property
    def _simulated(self) -> bool:
        """The camera is the simulated tray (its dice teach nothing of the owner's)."""
        return hasattr(self.source, "throw")

    def _played_rolls(self, diceset) -> PlayedRolls | None:
        """Where the rolls of ``diceset`` corrected in play are kept; None when they are not
        (``[vision] played = ""``)."""
        if self.cfg.vision.played is None:
            return None
        if diceset.id not in self.played:
            self.played[diceset.id] = PlayedRolls(self.cfg.vision.played, diceset)
        return self.played[diceset.id]

    def _teach_offer(self, game_id: str) -> str | None:
        """The start screen's line offering to teach the dice of ``game_id`` from the rolls
        kept in play (looked at once a dice set and start screen), or None."""
        set_id = games.get(game_id).DICE_SET
        if set_id not in self.offers:
            from vision import dicesets

            played = self._played_rolls(dicesets.load(set_id))
            self.offers[set_id] = played.teach_offer() if played is not None else None
        return self.offers[set_id]

    def teach_screen(self) -> None:
        """Teach the chosen game's dice from the rolls kept in play, teaching's progress on
        the screen; the start screen then says how it went."""
        from vision import dicesets

        played = self._played_rolls(dicesets.load(games.get(self.menu.game_id).DICE_SET))
        if played is None:
            return
        self.flush()
        self.menu.message = teach_played(played, self.display, stop=self._stop_asked())
        self.offers.clear()
        self.menu.teach = None
        self.menu.focus = self.menu.rows()  # on Start (the teach line is gone)
        self.flush()  # presses made while teaching are not choices

    def _stop_asked(self):
        """``stop()`` for work the start screen waits on (teaching): True once a button is
        held long, or Esc or Backspace is pressed; a closed window stops it too, and the
        start screen then quits."""
        import pygame

        pending: dict[int, float] = {}

        def stop() -> bool:
            asked = False
            while not self.events.empty():
                long = press_length(self.events.get_nowait(), pending, self.releases, self.long_s)
                asked = asked or bool(long)
            for ev in pygame.event.get((pygame.QUIT, pygame.KEYDOWN)):
                if ev.type == pygame.QUIT:
                    pygame.event.post(pygame.event.Event(pygame.QUIT))
                    return True
                asked = asked or pygame.key.name(ev.key) in ("escape", "backspace")
            return asked

        return stop

    def close(self) -> None:
        if self.source is not None:
            self.source.close()
            self.source = None
        if self.buttons is not None:
            self.buttons.close()
        if self.net is not None:
            self.net.close()

    def turn(self) -> float:
        """The start of a loop turn: the time, the test hook, the buttons' debounce."""
        t = self.now()
        if self.on_step is not None:
            self.on_step(self, t)
            t = self.now()
        if self.buttons is not None and self.polled:
            self.buttons.poll(t)
        return t

    def out_of_time(self, t: float) -> bool:
        return self.max_seconds is not None and t > self.max_seconds

    def pause(self, seconds: float) -> None:
        """Let the CPU rest between turns (not under a test's clock)."""
        if self.on_step is None:
            time.sleep(seconds)

    def flush(self) -> None:
        """Forget button events still queued (a press held across two screens)."""
        while not self.events.empty():
            self.events.get_nowait()

    def new_journal(self, game_id: str, players: list[str], options: dict):
        began = datetime.now(UTC)
        j = make_journal(
            journal_path(self.journal_dir, game_id, began), game_id, players, options, began
        )
        self.journals.append(j.path)
        return j

    # ------------------------------------------------------------------ the screens
    def start_screen(self, focus_game: bool = False):
        """Run the start screen until a game starts or resumes (its journal) or the table is
        quit (None)."""
        import pygame

        menu = self.menu
        offer = resume_offer(self.journal_dir)
        self.offers.clear()  # rolls were kept in the game just played
        menu.teach = self._teach_offer(menu.game_id)  # (before the focus goes to Resume)
        menu.offer_resume(*(offer if offer is not None else (None, None)))
        if focus_game:  # "Another game": short presses change the game now
            menu.focus, menu.editing = 0, True
        self.flush()
        if self.buttons is not None:
            self.buttons.all_leds(True)  # every button works the start screen
        buttons = MenuButtons(menu, releases=self.releases, long_s=self.long_s)
        while True:
            t = self.turn()
            while not self.events.empty():
                buttons.handle(self.events.get_nowait())
            for ev in pygame.event.get():
                if ev.type == pygame.QUIT:
                    return None
                if ev.type == pygame.KEYDOWN:
                    name = pygame.key.name(ev.key)
                    if len(name) == 1 and name.isdigit():  # a player's key: a button
                        menu.press(bool(ev.mod & pygame.KMOD_SHIFT))
                    else:
                        menu.key(name)
                elif ev.type == pygame.MOUSEBUTTONDOWN:
                    menu.tap(self.display.hit(ev.pos))
            menu.teach = self._teach_offer(menu.game_id)
            outcome = menu.outcome
            menu.clear()
            if outcome == "quit":
                return None
            done, journal = self._menu_outcome(outcome)
            if done:
                return journal
            self.display.draw(start_view(menu))
            if self.out_of_time(t):
                return None
            self.pause(0.03)  # about 30 pictures a second on the start screen

    def _menu_outcome(self, outcome: str | None):
        """What the start menu's ``outcome`` leads to: ``(True, journal)`` when a game starts
        or resumes, ``(True, None)`` when the window was closed on a page shown from the menu,
        ``(False, None)`` to stay on the start screen (a message may say why)."""
        menu = self.menu
        if outcome == "resume" and menu.resume_path is not None:
            try:
                j = Journal.open(menu.resume_path, salvage=True)
                self.journals.append(j.path)
                return True, j
            except (ValueError, OSError) as exc:
                menu.offer_resume(None, None)
                menu.message = f"That game cannot be resumed: {exc}"
        elif outcome == "discard" and menu.resume_path is not None:
            try:
                discard(menu.resume_path)
                menu.message = "The unfinished game was put aside"
            except OSError as exc:
                menu.message = f"Could not put the unfinished game aside: {exc}"
            offer = resume_offer(self.journal_dir)
            menu.offer_resume(*(offer if offer is not None else (None, None)))
        elif outcome == "teach":
            self.teach_screen()
        elif outcome == "history":
            return self.history_screen(), None
        elif outcome == "howto":
            return self.pages_screen([how_to_view(menu.game_id)]), None
        elif outcome == "start":
            try:
                return True, self.new_journal(menu.game_id, menu.players, menu.chosen_options())
            except (RuleError, ValueError, OSError) as exc:
                menu.message = str(exc)
        return False, None

    def history_screen(self) -> bool:
        """The table's history pages (tray/screen/history_screen.py): a press or a key turns
        the page, a long press or Esc goes back. True when the window was closed."""
        return self.pages_screen(history_pages(*read_folder(self.journal_dir)))

    def pages_screen(self, pages: list) -> bool:
        """Show views one after another (the history pages, a how-to-play page): a press, a
        key or a tap turns the page, a long press or Esc goes back; past the last page it goes
        back too. True when the window was closed."""
        import pygame

        i = 0
        pending: dict[int, float] = {}
        self.flush()
        while 0 <= i < len(pages):
            t = self.turn()
            while not self.events.empty():
                # a GPIO press is decided when let go, as on the start screen (held long: back)
                long = press_length(self.events.get_nowait(), pending, self.releases, self.long_s)
                if long is not None:
                    i = -1 if long else i + 1
            for ev in pygame.event.get():
                if ev.type == pygame.QUIT:
                    return True
                if ev.type == pygame.KEYDOWN:
                    i = -1 if pygame.key.name(ev.key) in ("escape", "backspace") else i + 1
                elif ev.type == pygame.MOUSEBUTTONDOWN:
                    i += 1
            if 0 <= i < len(pages):
                self.display.draw(pages[i])
            if self.out_of_time(t):
                return True
            self.pause(0.03)
        self.flush()
        return False

    def game(self, journal) -> str:
        """Run one game until its end screen or table menu says what next: "rematch",
        "another", "menu", "leave"; or "quit" (window closed, time limit)."""
        import pygame

        session = self._session(journal)
        table, source = session.table, session.source
        simulated = hasattr(source, "throw") and hasattr(source, "pick_up")
        if simulated:
            table.message = Message(
                "No camera: this is the simulated tray. Press T to throw "
                "the dice the game asks for.",
                "info",
                self.now() + 8,
            )
        self.flush()
        rolls_seen, lit = 0, []
        while True:
            t = self.turn()
            session.step(t)
            if simulated and table.rolls_taken != rolls_seen:
                rolls_seen = table.rolls_taken
                source.pick_up()  # people take their dice out of the tray
            lit = self._light_buttons(table, lit)
            for ev in pygame.event.get():
                if ev.type == pygame.QUIT:
                    return "quit"
                if ev.type == pygame.KEYDOWN:
                    play_key(session, pygame.key.name(ev.key), bool(ev.mod & pygame.KMOD_SHIFT), t)
                elif ev.type == pygame.MOUSEBUTTONDOWN:
                    handle_tap(table, self.display.hit(ev.pos), t)
            if table.outcome is not None:
                return table.outcome
            if self.out_of_time(t):
                return "quit"
            if self.headless:  # otherwise the camera's frames pace the loop
                self.pause(0.001)

    def _session(self, journal) -> Session:
        """The session of a game: its table, the camera for its dice set (opened again only
        for another set), the vision, the keys, the bots and the network."""
        from vision import dicesets

        table = Table(journal)
        diceset = dicesets.load(journal.game.DICE_SET)
        if self.source is None or self.source_set != diceset.id:
            if self.source is not None:
                self.source.close()
            self.source, self.source_set = self.open_source(diceset.id), diceset.id
        recognizer, settler = self.open_vision(diceset)
        session = Session(
            table,
            self.source,
            recognizer,
            settler,
            events=self.events,
            display=self.display,
            releases=self.releases,
            long_s=self.long_s,
        )
        self.keys.players = len(journal.players)
        session.keys = self.keys
        session.bots = BotSeats(table)
        session.odds_mode = getattr(self.cfg.screen, "odds", "off")
        # rolls the players correct teach the tray later (not the simulated tray's dice)
        played = self._played_rolls(diceset)
        if played is not None and not self._simulated:
            session.keep_played(played)
        if self.net is not None:
            self.net.attach(session)
        return session

    def _light_buttons(self, table: Table, lit: list) -> list:
        """Lights the LEDs of the buttons that can be pressed now (when they changed from
        ``lit``); returns what is lit."""
        if self.buttons is None or not getattr(self.buttons, "leds", None):
            return lit
        want = led_states(table)
        if want != lit:
            for p, on in enumerate(want[: len(self.buttons.leds)]):
                self.buttons.set_led(p, on)
        return want

    def run(self, game_id: str | None = None, players: int | None = None) -> int:
        """Start screen, games, rematches, until "Quit the table": the exit code (0)."""
        journal = None
        if game_id is not None:  # --game: straight into a game
            n = players or max(games.get(game_id).MIN_PLAYERS, min(len(self.names), 4))
            journal = self.new_journal(
                game_id, (self.names + DEMO_NAMES)[:n], dict(self.cfg.game.options.get(game_id, {}))
            )
        focus_game = False
        try:
            while True:
                if journal is None:
                    journal = self.start_screen(focus_game)
                    if journal is None:
                        return 0
                what = self.game(journal)
                if what == "quit":
                    return 0
                if what == "rematch":
                    journal = self.new_journal(
                        journal.game_id, list(journal.players), options_of(journal)
                    )
                    continue
                self.menu.set_game(journal.game_id, options_of(journal), list(journal.players))
                focus_game = what == "another"
                journal = None
        finally:
            self.close()
            for played in self.played.values():
                if (hint := played.teach_hint()) is not None:
                    print(hint)


def run_play(
    cfg,
    source_spec: str | None = None,
    game_id: str | None = None,
    players: int | None = None,
    headless: bool = False,
    max_seconds: float | None = None,
    **parts,
) -> int:
    """The play loop (see :class:`Play`; ``parts``: its test hooks). Returns the exit code."""
    return Play(cfg, source_spec, headless, max_seconds, **parts).run(game_id, players)


def show_error(text: str, headless: bool, seconds: float = ERROR_SHOW_S) -> None:
    """Show a user's mistake on the screen for a while (the console has no other voice)."""
    if headless or seconds <= 0:
        return
    try:
        display = Display(headless=False, fullscreen=_on_pi_console())
        menu = StartMenu(DEMO_NAMES[:4])
        menu.message = text
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            display.draw(start_view(menu))
            time.sleep(0.1)
    except Exception as exc:  # noqa: BLE001 - no screen to show it on: stderr has said it
        print(f"dicetray play: (no screen to show that on: {exc})", file=sys.stderr)


def has_display() -> bool:
    if os.environ.get("SDL_VIDEODRIVER") == "dummy":
        return False
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _on_pi_console() -> bool:
    return os.environ.get("SDL_VIDEODRIVER") in ("kmsdrm", "fbcon")


def _play_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="dicetray play",
        description=(
            "Run the table: the camera reads the dice, the buttons (or keys 1-0) answer, the "
            "screen runs the game. Uses the config file (see config.example.toml). Exit 0: quit "
            "from the start screen; 2: a mistake in the config; other: a crash."
        ),
    )
    ap.add_argument(
        "--config", default=None, help="config file (default ~/.config/dicetray/config.toml)"
    )
    ap.add_argument(
        "--source",
        default=None,
        help="override camera.source (auto, sim, picamera, opencv:0, replay:DIR)",
    )
    ap.add_argument(
        "--game", default=None, choices=games.GAME_IDS, help="skip the start screen: play this game"
    )
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--headless", action="store_true", help="no window (for testing)")
    ap.add_argument("--max-seconds", type=float, default=None)
    ap.add_argument(
        "--taught",
        metavar="DIR",
        default=None,
        help="a taught folder (dicetray teach) for your own dice",
    )
    ap.add_argument(
        "--web",
        metavar="HOST:PORT",
        default=None,
        help="serve the phone page (over the config's [web] listen; needs the web extra)",
    )
    ap.add_argument(
        "--broker",
        metavar="URL",
        default=None,
        help="publish the games to an MQTT broker, mqtt://HOST:PORT (over [broker] url)",
    )
    ap.add_argument("--table", default=None, help="the table's name on the page and the broker")
    return ap


def main_play(argv: list[str]) -> int:
    """``dicetray play``: the real table (camera, buttons, screen) from the config file."""
    args = _play_parser().parse_args(argv)

    headless = args.headless or not (has_display() or _on_pi_console())
    try:
        cfg = load_config(args.config, required=args.config is not None)
    except ConfigError as exc:
        print(f"dicetray play: {exc}", file=sys.stderr)
        show_error(f"The config file has a mistake: {exc}", headless)
        return 2
    try:
        from vision.taught import TaughtError, TaughtModel

        if args.taught:
            TaughtModel.load(args.taught)  # a bad folder is told now, not mid-game
        for folder in cfg.vision.taught.values():  # the config's too, before the start screen
            try:
                TaughtModel.load(folder)
            except TaughtError as exc:
                raise TaughtError(f"{cfg.path or 'config'}: [vision] taught: {exc}") from None
        from tray.net import MissingExtra
        from tray.net.attach import describe, net_from_options

        try:
            net = net_from_options(
                args.web, args.broker, args.table, cfg, journal_dir=cfg.journal.directory
            )
        except MissingExtra as exc:
            print(f"dicetray play: {exc}", file=sys.stderr)
            return 2
        for line in describe(net) if net is not None else []:
            print(line, flush=True)
        return run_play(
            cfg,
            source_spec=args.source,
            game_id=args.game,
            players=args.players,
            headless=headless,
            max_seconds=args.max_seconds,
            taught=args.taught,
            net=net,
        )
    except (ValueError, RuleError) as exc:
        print(f"dicetray play: {exc}", file=sys.stderr)
        show_error(str(exc), headless)
        return 2
    except (OSError, RuntimeError, ImportError) as exc:  # camera, models, GPIO: not a mistake
        print(f"dicetray play: {exc}", file=sys.stderr)
        return 1
