"""hardware/buttons.py driven through gpiozero's MockFactory with a hand-moved clock."""

from __future__ import annotations

import queue

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.buttons import (
    ButtonPress,
    ButtonRelease,
    KeyboardButtons,
    PlayerButtons,
    key_to_player,
)


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


@pytest.fixture
def rig():
    factory = MockFactory()
    clock = Clock()
    events: queue.Queue = queue.Queue()
    buttons = PlayerButtons(
        [17, 27, 22],
        events,
        pin_factory=factory,
        bounce_ms=30,
        led_pins=[5, 6, 13],
        clock=clock,
        releases=True,
        poll_interval=None,
    )
    yield factory, clock, events, buttons
    for pin in (17, 27, 22):
        factory.pin(pin).drive_high()  # gpiozero waits out hold_time when closing a held button
    buttons.close()


def drain(q):
    out = []
    while True:
        try:
            out.append(q.get_nowait())
        except queue.Empty:
            return out


def at(clock, buttons, t):
    clock.t = t
    buttons.poll()


def test_press_is_reported_after_bounce_window(rig):
    factory, clock, events, buttons = rig
    factory.pin(27).drive_low()  # seat 1 closes at t=100
    at(clock, buttons, 100.029)
    assert drain(events) == []  # not yet stable for 30 ms
    at(clock, buttons, 100.031)
    assert drain(events) == [ButtonPress(1, 100.0, "gpio")]
    assert buttons.is_pressed(1)
    clock.t = 100.5
    factory.pin(27).drive_high()
    at(clock, buttons, 100.6)
    assert drain(events) == [ButtonRelease(1, 100.5, pytest.approx(0.5), "gpio")]


def test_chatter_inside_window_is_one_press(rig):
    factory, clock, events, buttons = rig
    pin = factory.pin(17)
    for i, t in enumerate([100.000, 100.004, 100.007, 100.012, 100.015]):
        clock.t = t
        pin.drive_low() if i % 2 == 0 else pin.drive_high()
        buttons.poll()
    at(clock, buttons, 100.040)  # 25 ms since the last edge: still bouncing
    assert drain(events) == []
    at(clock, buttons, 100.046)
    got = drain(events)
    assert got == [ButtonPress(0, 100.0, "gpio")]  # one press, timed at the first contact
    # release with chatter: one release, and no second press
    for i, t in enumerate([100.300, 100.303, 100.306]):
        clock.t = t
        pin.drive_high() if i % 2 == 0 else pin.drive_low()
        buttons.poll()
    at(clock, buttons, 100.400)
    got = drain(events)
    assert [type(e) for e in got] == [ButtonRelease]
    assert not buttons.is_pressed(0)


def test_glitch_shorter_than_window_is_ignored(rig):
    factory, clock, events, buttons = rig
    pin = factory.pin(22)
    pin.drive_low()
    clock.t = 100.010
    pin.drive_high()
    at(clock, buttons, 101.0)
    assert drain(events) == []


def test_two_players_keep_order_by_contact_time(rig):
    factory, clock, events, buttons = rig
    factory.pin(22).drive_low()  # seat 2 at 100.000
    clock.t = 100.010
    factory.pin(17).drive_low()  # seat 0 at 100.010
    at(clock, buttons, 100.035)
    assert [e.player for e in drain(events)] == [2]
    at(clock, buttons, 100.045)
    assert drain(events) == [ButtonPress(0, 100.010, "gpio")]


def test_repeated_presses_each_count(rig):
    factory, clock, events, buttons = rig
    pin = factory.pin(17)
    for k in range(3):
        base = 100 + k
        clock.t = base
        pin.drive_low()
        at(clock, buttons, base + 0.05)
        clock.t = base + 0.2
        pin.drive_high()
        at(clock, buttons, base + 0.3)
    presses = [e for e in drain(events) if isinstance(e, ButtonPress)]
    assert [p.time for p in presses] == [100.0, 101.0, 102.0]


def test_zero_bounce_reports_at_once():
    factory = MockFactory()
    events: queue.Queue = queue.Queue()
    with PlayerButtons(
        [4], events, pin_factory=factory, bounce_ms=0, clock=lambda: 5.0, poll_interval=None
    ):
        factory.pin(4).drive_low()
        assert drain(events) == [ButtonPress(0, 5.0, "gpio")]


def test_pull_down_wiring():
    factory = MockFactory()
    events: queue.Queue = queue.Queue()
    with PlayerButtons(
        [4],
        events,
        pin_factory=factory,
        bounce_ms=0,
        clock=lambda: 1.0,
        pull_up=False,
        poll_interval=None,
    ):
        factory.pin(4).drive_high()
        assert drain(events) == [ButtonPress(0, 1.0, "gpio")]


def test_leds_on_off_and_blink(rig):
    factory, _clock, _events, buttons = rig
    buttons.set_led(2, True)
    assert factory.pin(13).state and not factory.pin(5).state
    buttons.set_led(2, False)
    assert not factory.pin(13).state
    buttons.all_leds(True)
    assert all(factory.pin(p).state for p in (5, 6, 13))
    buttons.blink(0, on_time=0.001, off_time=0.001, n=2)
    buttons.leds[0]._blink_thread.join(timeout=2.0)  # gpiozero's own background blinker
    assert not factory.pin(5).state  # ends off after n blinks
    with pytest.raises(IndexError, match="no LED for player 7"):
        buttons.set_led(7, True)


def test_no_leds_is_fine():
    factory = MockFactory()
    with PlayerButtons([4, 5], queue.Queue(), pin_factory=factory, poll_interval=None) as b:
        b.set_led(0, True)
        b.blink(1)
        assert b.count == 2


def test_bad_wiring_is_refused():
    factory = MockFactory()
    with pytest.raises(ValueError, match="repeat a pin"):
        PlayerButtons([4, 4], queue.Queue(), pin_factory=factory, poll_interval=None)
    with pytest.raises(ValueError, match="one LED pin per button"):
        PlayerButtons([4, 5], queue.Queue(), pin_factory=factory, led_pins=[6], poll_interval=None)


def test_poll_thread_reports_presses():
    factory = MockFactory()
    events: queue.Queue = queue.Queue()
    with PlayerButtons([4], events, pin_factory=factory, bounce_ms=5, poll_interval=0.001):
        factory.pin(4).drive_low()
        press = events.get(timeout=5.0)  # the background poll reports it (no fixed sleep)
        assert press.player == 0
        factory.pin(4).drive_high()


def test_key_mapping():
    assert [key_to_player(str(d)) for d in "1234567890"] == list(range(10))
    assert key_to_player("[5]") == 4 and key_to_player("keypad 0") == 9
    assert key_to_player(ord("1")) == 0
    assert key_to_player(0x40000059) == 0 and key_to_player(0x40000062) == 9  # keypad 1 / 0
    assert key_to_player("a") is None and key_to_player(27) is None and key_to_player(None) is None


def test_keyboard_buttons_put_presses():
    events: queue.Queue = queue.Queue()
    kb = KeyboardButtons(events, players=3, clock=lambda: 2.5)
    assert kb.key("2") and not kb.key("4") and not kb.key("q")
    assert drain(events) == [ButtonPress(1, 2.5, "key")]
