"""Player buttons (GPIO via gpiozero) and the keyboard stand-in, both putting ButtonPress events
into one queue.

Debouncing is done here, not by gpiozero (its MockFactory does not simulate ``bounce_time``,
so tests could not show it works): a press is accepted once the pin has read "pressed" for
``bounce_ms`` without a change, and any chatter inside that window is the same press. The
press time reported is when the contact first closed, so the fairest "first press wins" is
possible. Time comes from an injected ``clock`` so tests drive it by hand.

Off a Raspberry Pi gpiozero's MockFactory is used, so everything runs (and is tested) anywhere::

    >>> import queue
    >>> from gpiozero.pins.mock import MockFactory
    >>> now = [0.0]
    >>> events = queue.Queue()
    >>> factory = MockFactory()
    >>> buttons = PlayerButtons([17, 27], events, pin_factory=factory, clock=lambda: now[0],
    ...                         poll_interval=None)
    >>> factory.pin(27).drive_low(); now[0] = 0.05; buttons.poll()
    >>> events.get_nowait()
    ButtonPress(player=1, time=0.0, source='gpio')
    >>> factory.pin(27).drive_high(); buttons.close()
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "ButtonPress",
    "ButtonRelease",
    "KeyboardButtons",
    "PlayerButtons",
    "default_pin_factory",
    "key_to_player",
]


@dataclass(frozen=True)
class ButtonPress:
    """A player pressed their button (``player`` = 0-based seat) at ``time`` (clock seconds).

    ``source`` says where it came from: "gpio", "key" or "touch".

    >>> ButtonPress(0, 12.5)
    ButtonPress(player=0, time=12.5, source='gpio')
    """

    player: int
    time: float
    source: str = "gpio"


@dataclass(frozen=True)
class ButtonRelease:
    """A button let go after being held ``held`` seconds (only sent with ``releases=True``).

    >>> ButtonRelease(2, 3.0, 0.9).held >= 0.8
    True
    """

    player: int
    time: float
    held: float
    source: str = "gpio"


def default_pin_factory():
    """The gpiozero pin factory: the real one on a Pi, else a MockFactory (no hardware).

    >>> type(default_pin_factory()).__name__ in ("MockFactory", "LGPIOFactory", "RPiGPIOFactory",
    ...                                          "PiGPIOFactory", "NativeFactory")
    True
    """
    from gpiozero import Device

    if Device.pin_factory is not None:
        return Device.pin_factory
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the fall-back chain warns once per library
            Device.ensure_pin_factory()
        return Device.pin_factory
    except Exception:  # noqa: BLE001 - gpiozero raises several kinds when no GPIO exists
        from gpiozero.pins.mock import MockFactory

        Device.pin_factory = MockFactory()
        return Device.pin_factory


class _Debounce:
    """State of one button: the raw level, when it last changed, and what was reported."""

    __slots__ = ("burst_start", "changed", "pressed_at", "raw", "stable")

    def __init__(self, now: float):
        self.raw = False  # the contact closed right now?
        self.changed = now  # time of the last raw change
        self.stable = False  # the debounced (reported) state
        self.burst_start = None  # time the current run of chatter began
        self.pressed_at = 0.0  # reported press time (for hold durations)


class PlayerButtons:
    """One push button per player on GPIO pins, optionally one LED each.

    ``pins``: BCM numbers in seat order. ``events``: a queue that receives
    :class:`ButtonPress` (and :class:`ButtonRelease` with ``releases=True``). ``pull_up``: the
    button connects the pin to GND (the usual wiring). A background thread checks the pins'
    debounce timers every ``poll_interval`` seconds (None: call :meth:`poll` yourself, as tests
    do with an injected ``clock``).

    >>> import queue
    >>> from gpiozero.pins.mock import MockFactory
    >>> f = MockFactory()
    >>> with PlayerButtons([5, 6], queue.Queue(), pin_factory=f, led_pins=[20, 21]) as b:
    ...     b.set_led(1, True)
    ...     f.pin(21).state
    True
    """

    def __init__(
        self,
        pins,
        events: queue.Queue,
        pin_factory=None,
        bounce_ms: int = 30,
        led_pins=None,
        clock: Callable[[], float] = time.monotonic,
        pull_up: bool = True,
        releases: bool = False,
        poll_interval: float | None = 0.005,
    ):
        from gpiozero import LED, Button

        pins = list(pins)
        led_pins = list(led_pins or [])
        if len(set(pins)) != len(pins):
            raise ValueError(f"button pins {pins} repeat a pin: give each player their own GPIO")
        if led_pins and len(led_pins) != len(pins):
            raise ValueError(
                f"{len(led_pins)} LED pins for {len(pins)} buttons: give one LED "
                "pin per button, or none"
            )
        self.events = events
        self.clock = clock
        self.bounce = max(0, bounce_ms) / 1000.0
        self.releases = releases
        self.factory = pin_factory if pin_factory is not None else default_pin_factory()
        self._lock = threading.RLock()
        now = clock()
        self._state = [_Debounce(now) for _ in pins]
        self.buttons = []
        self.leds = []
        try:
            for i, pin in enumerate(pins):
                b = Button(pin, pull_up=pull_up, bounce_time=None, pin_factory=self.factory)
                b.when_pressed = self._edge_handler(i, True)
                b.when_released = self._edge_handler(i, False)
                self.buttons.append(b)
            for pin in led_pins:
                self.leds.append(LED(pin, pin_factory=self.factory))
        except Exception:
            self.close()
            raise
        self._stop = threading.Event()
        self._thread = None
        if poll_interval is not None:
            self._thread = threading.Thread(
                target=self._run, args=(poll_interval,), name="dicetray-buttons", daemon=True
            )
            self._thread.start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def count(self) -> int:
        """How many player buttons there are."""
        return len(self.buttons)

    def _edge_handler(self, player: int, closed: bool):
        def handler(*_args):
            self.edge(player, closed)

        return handler

    def edge(self, player: int, closed: bool, now: float | None = None) -> None:
        """Record a raw contact change of ``player``'s button (called by the GPIO callbacks)."""
        with self._lock:
            now = self.clock() if now is None else now
            s = self._state[player]
            if closed == s.raw:
                return
            if s.burst_start is None or (s.raw == s.stable and now - s.changed >= self.bounce):
                s.burst_start = now  # leaving a settled state: a new burst begins
            s.raw = closed
            s.changed = now
        self.poll(now)

    def poll(self, now: float | None = None) -> None:
        """Report every button whose contact has been stable for ``bounce_ms`` in a new state."""
        with self._lock:
            now = self.clock() if now is None else now
            for player, s in enumerate(self._state):
                if now - s.changed < self.bounce:
                    continue  # still bouncing
                if s.raw == s.stable:
                    s.burst_start = None  # a glitch that came back: nothing happened
                    continue
                s.stable = s.raw
                start = s.burst_start if s.burst_start is not None else s.changed
                s.burst_start = None
                if s.stable:
                    s.pressed_at = start
                    self.events.put(ButtonPress(player, start, "gpio"))
                elif self.releases:
                    self.events.put(ButtonRelease(player, start, start - s.pressed_at, "gpio"))

    def is_pressed(self, player: int) -> bool:
        """The debounced state of ``player``'s button."""
        with self._lock:
            return self._state[player].stable

    def _run(self, interval: float) -> None:
        while not self._stop.wait(interval):
            self.poll()

    def _led(self, player: int):
        if not self.leds:
            return None
        if not 0 <= player < len(self.leds):
            raise IndexError(f"no LED for player {player}: there are {len(self.leds)}")
        return self.leds[player]

    def set_led(self, player: int, on: bool) -> None:
        """Light (or put out) ``player``'s LED; nothing happens when no LEDs are wired."""
        led = self._led(player)
        if led is not None:
            led.on() if on else led.off()

    def blink(
        self, player: int, on_time: float = 0.3, off_time: float = 0.3, n: int | None = None
    ) -> None:
        """Blink ``player``'s LED ``n`` times (None: until set_led or all_leds is called)."""
        led = self._led(player)
        if led is not None:
            led.blink(on_time=on_time, off_time=off_time, n=n, background=True)

    def all_leds(self, on: bool) -> None:
        """Every LED on or off (stops blinking)."""
        for i in range(len(self.leds)):
            self.set_led(i, on)

    def close(self) -> None:
        """Stop the poll thread and release the pins."""
        stop = getattr(self, "_stop", None)
        if stop is not None:
            stop.set()
        if getattr(self, "_thread", None) is not None:
            self._thread.join(timeout=1.0)
            self._thread = None
        for dev in list(getattr(self, "leds", [])) + list(getattr(self, "buttons", [])):
            with contextlib.suppress(Exception):  # a half-open device must not stop closing
                dev.close()
        self.leds, self.buttons = [], []


# SDL2 keycodes of the keypad digits (SDLK_KP_1..SDLK_KP_9, SDLK_KP_0 in SDL_keycode.h): pygame
# reports them as event.key for the number pad.
_SDLK_KP_1 = 0x40000059
_SDLK_KP_0 = 0x40000062


def key_to_player(key) -> int | None:
    """The seat a key stands for: "1".."9" -> 0..8, "0" -> 9; anything else None.

    Takes a character (pygame's ``event.unicode``, or a key name like "[3]"/"keypad 3") or a
    pygame key code (``event.key``: digits and keypad digits).

    >>> key_to_player("1"), key_to_player("0"), key_to_player(ord("4")), key_to_player("x")
    (0, 9, 3, None)
    """
    if isinstance(key, int) and not isinstance(key, bool):
        if ord("0") <= key <= ord("9"):
            key = chr(key)
        elif _SDLK_KP_1 <= key <= _SDLK_KP_0:
            return key - _SDLK_KP_1
        else:
            return None
    if not isinstance(key, str):
        return None
    k = key.strip().lower()
    for prefix in ("keypad ", "[", "kp"):
        if k.startswith(prefix):
            k = k[len(prefix) :].rstrip("]").strip()
    if len(k) == 1 and k.isdigit():
        return (int(k) - 1) % 10
    return None


class KeyboardButtons:
    """Keys 1..9 and 0 as the buttons of seats 0..9: the same ButtonPress events as GPIO.

    The screen calls :meth:`key` with each key event; seats beyond ``players`` are ignored.

    >>> import queue
    >>> q = queue.Queue()
    >>> kb = KeyboardButtons(q, players=4, clock=lambda: 7.0)
    >>> kb.key("3"), kb.key("9")
    (True, False)
    >>> q.get_nowait()
    ButtonPress(player=2, time=7.0, source='key')
    """

    def __init__(
        self, events: queue.Queue, players: int = 10, clock: Callable[[], float] = time.monotonic
    ):
        self.events = events
        self.players = players
        self.clock = clock

    def key(self, key, now: float | None = None) -> bool:
        """Put a ButtonPress for ``key`` if it is a seat's key; True when it was one."""
        player = key_to_player(key)
        if player is None or player >= self.players:
            return False
        self.events.put(ButtonPress(player, self.clock() if now is None else now, "key"))
        return True

    def close(self) -> None:
        """Nothing to release (same interface as PlayerButtons)."""
