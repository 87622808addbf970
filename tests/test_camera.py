"""Every frame source (hardware.picam, webcam, replay, sim.tray), dropouts and recovery, the
config string (hardware.camera). No sleeping: paced sources get an injected clock, threads are
waited on with generous timeouts."""

from __future__ import annotations

import json
import sys
import threading
import types
from typing import ClassVar

import cv2
import numpy as np
import pytest

from hardware import camera as cam_mod
from hardware.camera import CameraConfig, open_source
from hardware.frames import Adjusted, CameraError
from hardware.picam import PICAMERA_MISSING, PiCamera
from hardware.replay import ReplaySource
from hardware.sim.tray import SimulatedTray
from hardware.webcam import OpenCVCamera


def level(frame) -> int:
    """The grey level a test frame was filled with."""
    return round(float(frame.mean()))


@pytest.fixture
def frames_dir(tmp_path):
    d = tmp_path / "seq"
    d.mkdir()
    for i in range(12):  # names sort naturally: 2 before 10
        cv2.imwrite(str(d / f"frame{i}.png"), np.full((480, 640, 3), 10 * i, np.uint8))
    (d / "expected.json").write_text(json.dumps({"dice_set": "d6", "fps": 10, "throws": []}))
    return d


class FakeClock:
    def __init__(self):
        self.t = 0.0
        self.slept = []

    def __call__(self):
        return self.t

    def sleep(self, s):
        self.slept.append(round(s, 6))
        self.t += s


# --- replay ---------------------------------------------------------------------------------


def test_replay_plays_every_frame_in_order_then_ends(frames_dir):
    src = ReplaySource(frames_dir, realtime=False)
    assert src.fps == 10 and len(src) == 12
    got = [level(src.read()) for _ in range(12)]
    assert got == [10 * i for i in range(12)]
    assert src.read() is None and src.finished


def test_replay_keeps_the_recorded_pace(frames_dir):
    clock = FakeClock()
    src = ReplaySource(frames_dir, clock=clock, sleep=clock.sleep)
    for _ in range(5):
        assert src.read() is not None
    assert clock.slept == [0.1] * 4  # first frame at once, then one every 1/fps
    assert clock.t == pytest.approx(0.4)


def test_replay_timeout_shorter_than_frame_gap_is_a_dropout(frames_dir):
    clock = FakeClock()
    src = ReplaySource(frames_dir, clock=clock, sleep=clock.sleep)
    src.read()
    assert src.read(timeout=0.05) is None  # the next frame is 0.1 s away
    assert level(src.read(timeout=1.0)) == 10


def test_replay_scripted_dropout_then_recovery(frames_dir):
    src = ReplaySource(frames_dir, realtime=False, dropouts=[(3, 2)])
    got = [src.read() for _ in range(7)]
    assert [g is None for g in got] == [False, False, False, True, True, False, False]
    assert level(got[5]) == 50  # frames 3 and 4 were lost, frame 5 follows


def test_replay_loops(frames_dir):
    src = ReplaySource(frames_dir, realtime=False, loop=True)
    got = [level(src.read()) for _ in range(14)]
    assert got[12:] == [0, 10] and not src.finished


def test_replay_resizes_and_handles_grey(tmp_path):
    d = tmp_path / "odd"
    d.mkdir()
    cv2.imwrite(str(d / "a.png"), np.full((640, 640), 77, np.uint8))
    frame = ReplaySource(d, realtime=False).read()
    assert frame.shape == (480, 640, 3) and frame.dtype == np.uint8 and level(frame) == 77


def test_replay_errors_are_clear(tmp_path):
    with pytest.raises(CameraError, match="does not exist"):
        ReplaySource(tmp_path / "nope")
    with pytest.raises(CameraError, match="no JPEG or PNG frames"):
        ReplaySource(tmp_path)


def write_video(path, n=8, fps=10.0):
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (640, 480))
    assert writer.isOpened()
    for i in range(n):
        writer.write(np.full((480, 640, 3), 20 + 25 * i, np.uint8))
    writer.release()


def test_replay_of_a_video_file(tmp_path):
    video = tmp_path / "throw.avi"
    write_video(video)
    src = ReplaySource(video, realtime=False)
    assert src.fps == pytest.approx(10.0)
    got = [level(src.read()) for _ in range(8)]
    assert all(abs(g - (20 + 25 * i)) <= 3 for i, g in enumerate(got))
    assert src.read() is None


# --- OpenCV camera --------------------------------------------------------------------------


def test_opencv_camera_on_a_video_file(tmp_path):
    video = tmp_path / "cam.avi"
    write_video(video, n=6)
    with OpenCVCamera(str(video), realtime=False) as cam:
        assert cam.name.startswith("opencv:") and cam.fps == pytest.approx(10.0)
        got = [cam.read(timeout=10.0) for _ in range(8)]
        assert all(f is not None and f.shape == (480, 640, 3) for f in got)
        levels = [level(f) for f in got]
        assert all(abs(g - (20 + 25 * i)) <= 3 for i, g in enumerate(levels[:6]))
        assert abs(levels[6] - 20) <= 3  # at the end the file is reopened
        assert cam.reconnects >= 1
    assert cam.read(timeout=0.01) is None  # closed


def test_opencv_camera_missing_device_message():
    with pytest.raises(CameraError, match="no camera at index 57"):
        OpenCVCamera(57, capture_factory=lambda t: FakeCapture([], opened=False))


class FakeCapture:
    """A VideoCapture stand-in: delivers its frames, then fails (an unplugged camera).
    ``hold``: an Event it waits for (at most 5 s) before failing, so the reader can take one
    of its frames first however busy the machine is."""

    def __init__(self, frames, opened=True, hold=None):
        self.frames = list(frames)
        self.opened = opened
        self.hold = hold

    def isOpened(self):
        return self.opened

    def set(self, *_):
        return True

    def get(self, prop):
        return 0.0

    def read(self):
        if not self.frames:
            if self.hold is not None:
                self.hold.wait(5)
            return False, None
        return True, self.frames.pop(0)

    def release(self):
        self.opened = False


def test_opencv_camera_reconnects_after_unplug():
    # the first camera is unplugged only once a frame of it has been read (on a busy machine
    # the reader could otherwise first look after the reconnection)
    first_seen = threading.Event()
    plan = [
        FakeCapture([np.full((480, 640, 3), v, np.uint8) for v in (10, 20, 30)], hold=first_seen),
        FakeCapture([], opened=False),  # still unplugged at the first retry
        FakeCapture([np.full((240, 320, 3), v, np.uint8) for v in (40, 50)]),
    ]
    opened = []

    def factory(target):
        cap = plan.pop(0) if plan else FakeCapture([], opened=False)
        opened.append(target)
        return cap

    with OpenCVCamera(3, capture_factory=factory, reconnect_s=0.001) as cam:
        seen = []
        for _ in range(200):  # bounded: frames arrive as soon as the thread runs
            f = cam.read(timeout=0.05)
            if f is not None:
                seen.append(level(f))
                assert f.shape == (480, 640, 3)
                first_seen.set()
            if 50 in seen:
                break
        assert 10 in seen or 20 in seen or 30 in seen  # newest-frame-wins may skip some
        assert seen[-1] == 50
        assert cam.reconnects >= 1 and opened[:3] == [3, 3, 3]


# --- Pi camera ------------------------------------------------------------------------------


def test_picamera_missing_gives_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # as where it is not installed
    with pytest.raises(CameraError) as info:
        PiCamera()
    assert str(info.value) == PICAMERA_MISSING
    assert "sudo apt install python3-picamera2" in str(info.value)
    assert "--system-site-packages" in str(info.value)
    with pytest.raises(CameraError, match="picamera2 is not installed"):
        open_source("picamera")


class FakePicamera2:
    """Records what PiCamera asks of picamera2; ``timeouts`` waits time out before frames."""

    cameras: ClassVar[list] = [{"Model": "imx708"}]
    instances: ClassVar[list] = []

    def __init__(self, num=0):
        self.controls = []
        self.config = None
        self.started = self.closed = False
        self.timeouts = 0
        self.n = 0
        self.camera_controls = {"LensPosition": (0.0, 32.0, 1.0)}
        FakePicamera2.instances.append(self)

    @classmethod
    def global_camera_info(cls):
        return cls.cameras

    def create_video_configuration(self, **kw):
        return kw

    def configure(self, config):
        self.config = config

    def start(self):
        self.started = True

    def stop(self):
        self.started = False

    def close(self):
        self.closed = True

    def set_controls(self, controls):
        self.controls.append(dict(controls))

    def capture_array(self, name="main", wait=None):
        return ("job", name)

    def wait(self, job, timeout=None):
        if self.timeouts > 0:
            self.timeouts -= 1
            raise TimeoutError
        self.n += 1
        return np.full((480, 640, 3), self.n, np.uint8)

    def capture_metadata(self):
        return {
            "ExposureTime": 9000,
            "AnalogueGain": 1.75,
            "ColourGains": (1.9, 1.4),
            "Lux": 300.0,
            "SensorTimestamp": 1,
        }


def test_picamera_fixed_settings_and_dropout():
    cam = PiCamera(
        fps=30,
        exposure_us=8000,
        analogue_gain=2.0,
        colour_gains=[1.8, 1.5],
        lens_position=2.5,
        picamera2_class=FakePicamera2,
    )
    fake = FakePicamera2.instances[-1]
    assert fake.config["main"] == {"size": (640, 480), "format": "RGB888"}
    assert fake.config["controls"]["FrameDurationLimits"] == (33333, 33333)
    fixed = fake.controls[0]
    assert fixed["AeEnable"] is False and fixed["AwbEnable"] is False
    assert fixed["ExposureTime"] == 8000 and fixed["AnalogueGain"] == 2.0
    assert fixed["ColourGains"] == (1.8, 1.5)
    assert fake.controls[1]["LensPosition"] == 2.5
    assert level(cam.read()) == 1
    fake.timeouts = 2
    assert cam.read(timeout=0.1) is None and cam.read(timeout=0.1) is None  # dropout
    assert level(cam.read()) == 2  # recovery
    assert cam.metadata()["ColourGains"] == (1.9, 1.4)
    cam.set_auto()
    assert fake.controls[-1]["AeEnable"] is True and fake.controls[-1]["AwbEnable"] is True
    cam.close()
    assert fake.closed and cam.read() is None


def test_picamera_without_camera_says_check_cable(monkeypatch):
    monkeypatch.setattr(FakePicamera2, "cameras", [])
    with pytest.raises(CameraError, match="no Raspberry Pi camera found"):
        PiCamera(picamera2_class=FakePicamera2)


# --- corrections ----------------------------------------------------------------------------


class Pattern(cam_mod.FrameSource):
    def __init__(self):
        self.closed = False
        self.extra = "passed through"

    def read(self, timeout=1.0):
        f = np.zeros((480, 640, 3), np.uint8)
        f[:, 320:] = (100, 100, 100)
        return f

    def close(self):
        self.closed = True


def test_adjusted_crops_scales_and_gains():
    src = Pattern()
    adj = Adjusted(src, crop=[320, 0, 320, 240], gains=[1.0, 1.1, 2.0])
    f = adj.read()
    assert f.shape == (480, 640, 3)
    assert f[100, 10].tolist() == [100, 110, 200]  # only the right half, whole frame
    assert adj.extra == "passed through"
    adj.close()
    assert src.closed


# --- simulated tray (with a stand-in renderer; the real one is tested below) -------------


def fake_render_module():
    mod = types.ModuleType("hardware.sim.render")

    def random_style(rng):
        return {"felt": int(rng.integers(0, 50))}

    def render_scene(diceset, dice, rng, size=(640, 480), style=None):
        return np.full((size[1], size[0], 3), 5, np.uint8), []

    def render_throw(
        diceset,
        dice,
        rng,
        size=(640, 480),
        style=None,
        fps=30,
        rest_frames=12,
        hand=True,
        fit=False,
    ):
        labels = [
            {"x": 10 * i, "y": 10, "w": 40, "h": 40, "die": d, "face": f}
            for i, (d, f) in enumerate(dice)
        ]
        for i in range(4):
            yield (
                np.full((size[1], size[0], 3), 100 + i, np.uint8),
                {"phase": "moving", "labels": labels, "frame": i},
            )
        for i in range(rest_frames):
            yield (
                np.full((size[1], size[0], 3), 200, np.uint8),
                {"phase": "rest", "labels": labels, "frame": 4 + i},
            )
        if hand:
            for i in range(3):
                yield (
                    np.full((size[1], size[0], 3), 150, np.uint8),
                    {"phase": "hand", "labels": [], "frame": 4 + rest_frames + i},
                )
            yield (
                np.full((size[1], size[0], 3), 5, np.uint8),
                {"phase": "empty", "labels": [], "frame": 7 + rest_frames},
            )

    mod.random_style, mod.render_scene, mod.render_throw = random_style, render_scene, render_throw
    return mod


@pytest.fixture
def fake_render(monkeypatch):
    import hardware.sim

    mod = fake_render_module()
    monkeypatch.setitem(sys.modules, "hardware.sim.render", mod)
    monkeypatch.setattr(hardware.sim, "render", mod, raising=False)
    return mod


def phases(tray, n):
    out = []
    for _ in range(n):
        tray.read()
        out.append(tray.truth["phase"])
    return out


def test_sim_throw_moves_then_rests_until_picked_up(fake_render):
    tray = SimulatedTray("tally-up", seed=1, realtime=False, rest_frames=3)
    assert phases(tray, 2) == ["empty", "empty"]
    specs = tray.throw(["red:star", "blue", "up:x2"])
    assert specs[0] == "red:star" and specs[1].startswith("blue:") and specs[2] == "up:x2"
    assert tray.diceset.allows("blue", specs[1].split(":")[1])
    got = phases(tray, 12)
    assert got[:4] == ["moving"] * 4 and set(got[4:]) == {"rest"}  # stays until picked up
    assert tray.truth["dice"] == specs and len(tray.truth["labels"]) == 3
    tray.pick_up()
    assert phases(tray, 2) == ["empty", "empty"] and tray.truth["dice"] == []


def test_sim_auto_pickup_shows_the_hand(fake_render):
    tray = SimulatedTray("d6", seed=2, realtime=False, rest_frames=2, auto_pickup=True)
    tray.throw(count=2)
    got = phases(tray, 12)
    assert got[:4] == ["moving"] * 4 and got[4:6] == ["rest"] * 2
    assert "hand" in got and got[-1] == "empty"


def test_sim_random_throws_are_seeded(fake_render):
    a = SimulatedTray("tally-up", seed=7, realtime=False)
    b = SimulatedTray("tally-up", seed=7, realtime=False)
    assert [a.throw(count=3) for _ in range(3)] == [b.throw(count=3) for _ in range(3)]
    assert all(len({s.split(":")[0] for s in a.throw(count=6)}) == 6 for _ in range(3))


def test_sim_refuses_unknown_dice(fake_render):
    tray = SimulatedTray("tally-up", realtime=False)
    with pytest.raises(ValueError, match="'pink' is not a die of the tally-up set"):
        tray.throw(["pink:star"])
    with pytest.raises(ValueError, match="red has no face '100'"):
        tray.throw(["red:100"])


def test_sim_dropout_then_recovery(fake_render):
    tray = SimulatedTray("d6", realtime=False, rest_frames=2)
    tray.throw(["d6:1", "d6:6"])
    tray.drop_out(frames=3)
    assert [tray.read() is None for _ in range(4)] == [True, True, True, False]
    assert tray.truth["frame"] == 3 and tray.truth["phase"] == "moving"  # the throw went on


def test_sim_dropout_in_seconds_uses_its_clock(fake_render):
    clock = FakeClock()
    tray = SimulatedTray("d6", realtime=True, fps=10, clock=clock, sleep=clock.sleep)
    tray.read()
    tray.drop_out(seconds=0.35)
    got = [tray.read() is None for _ in range(6)]
    assert got == [True, True, True, False, False, False]


def test_sim_realtime_pace(fake_render):
    clock = FakeClock()
    tray = SimulatedTray("d6", realtime=True, fps=20, clock=clock, sleep=clock.sleep)
    for _ in range(4):
        tray.read()
    assert clock.slept == [0.05] * 3


# --- open_source ----------------------------------------------------------------------------


def test_open_source_strings(fake_render, frames_dir, monkeypatch):
    with open_source("sim:toss-up", realtime=False) as s:
        assert isinstance(s, SimulatedTray) and s.diceset.id == "toss-up"
    with open_source(f"replay:{frames_dir}", realtime=False) as s:
        assert isinstance(s, ReplaySource) and level(s.read()) == 0
    monkeypatch.setattr(cam_mod, "picamera_available", lambda: False)
    monkeypatch.setattr(cam_mod, "_opencv_probe", lambda index=0: False)
    with open_source("auto", dice_set="rollers", realtime=False) as s:
        assert isinstance(s, SimulatedTray) and s.diceset.id == "rollers"
    with pytest.raises(CameraError, match="unknown camera source 'usb'"):
        open_source("usb")


def test_open_source_applies_calibration(frames_dir):
    cfg = CameraConfig(crop=[0, 0, 320, 240], software_gains=[1.0, 1.0, 1.5])
    with open_source(f"replay:{frames_dir}", camera=cfg, realtime=False) as s:
        assert isinstance(s, Adjusted)
        s.read()
        f = s.read()
        assert f.shape == (480, 640, 3) and f[0, 0].tolist() == [10, 10, 15]


# --- the real renderer (hardware.sim.render) ------------------------------------------------------


def test_sim_with_real_renderer_moves_then_rests():
    tray = SimulatedTray("d6", seed=0, realtime=False, rest_frames=4)
    tray.throw(["d6:3", "d6:5"])
    seen = []
    for _ in range(400):
        frame = tray.read()
        assert frame is not None and frame.shape == (480, 640, 3) and frame.dtype == np.uint8
        seen.append(tray.truth["phase"])
        if seen[-1] == "rest" and seen.count("rest") >= 6:
            break
    assert "moving" in seen and seen[-1] == "rest"
    assert seen.index("moving") < seen.index("rest")
    assert sorted(f"{lab['die']}:{lab['face']}" for lab in tray.truth["labels"]) == ["d6:3", "d6:5"]


# --- Pi helpers (hardware/pi.py) ------------------------------------------------------------


def test_pi_model_and_display_env(tmp_path):
    from hardware import pi

    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\x00")
    assert pi.pi_model(model) == "Raspberry Pi 5 Model B Rev 1.0" and pi.is_raspberry_pi(model)
    model.write_bytes(b"Some PC\x00")
    assert pi.pi_model(model) is None
    assert not pi.is_raspberry_pi(tmp_path / "missing")
    assert pi.display_env({}) == {"SDL_VIDEODRIVER": "kmsdrm"}
    assert pi.display_env({"WAYLAND_DISPLAY": "wayland-1"}) == {}
    assert pi.display_env({"SDL_VIDEODRIVER": "dummy"}) == {}


def test_pi_check_reports_a_bad_config(tmp_path, capsys):
    from hardware import pi

    bad = tmp_path / "c.toml"
    bad.write_text("[pins]\nbuttons = [99]\n", encoding="utf-8")
    assert pi.main(["--config", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "[FIX] config" in out and "pins.buttons[0] = 99" in out


def test_record_command_round_trip(frames_dir, tmp_path, capsys):
    rec = tmp_path / "rec"
    assert (
        cam_mod.main([f"replay:{frames_dir}", "--frames", "6", "--fast", "--save", str(rec)]) == 0
    )
    assert "6 frames, 0 dropouts" in capsys.readouterr().out
    meta = json.loads((rec / "expected.json").read_text())
    assert meta["fps"] == 10 and meta["frames"] == 6
    src = ReplaySource(rec, realtime=False)
    assert src.fps == 10 and [abs(level(src.read()) - 10 * i) <= 2 for i in range(6)] == [True] * 6


def test_replay_of_the_committed_fixtures():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "fixtures" / "throws"
    seqs = sorted(p for p in root.glob("*") if (p / "expected.json").is_file())
    assert seqs, f"no recorded throws in {root}"
    for seq in seqs:
        meta = json.loads((seq / "expected.json").read_text())
        src = ReplaySource(seq, realtime=False, dropouts=[(2, 3)])
        assert src.fps == meta["fps"]
        got = [src.read() for _ in range(len(src) + 1)]
        assert [f is None for f in got[:6]] == [False, False, True, True, True, False]
        assert got[0].shape == (480, 640, 3)
        assert sum(f is not None for f in got) == len(src) - 3 and got[-1] is None
        assert src.finished
