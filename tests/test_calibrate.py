"""tray/app/calibrate.py: finding the tray, gains, the Pi camera's settling, the whole command."""

from __future__ import annotations

import sys
import types

import cv2
import numpy as np
import pytest

from tray.app import calibrate
from tray.app.calibrate import (
    CalibrationError,
    check_placed_dice,
    converge_picamera,
    expand_to_aspect,
    felt_gains,
    find_tray,
)
from tray.app.config import load_config
from vision.types import DieReading, FrameReading

FELT = (60, 120, 40)  # BGR green felt
TABLE = (35, 45, 70)  # BGR brown table


def tray_frame(rect=(120, 90, 400, 300), felt=FELT, table=TABLE, dice=(), noise=4, seed=0):
    rng = np.random.default_rng(seed)
    f = np.empty((480, 640, 3), np.uint8)
    f[:] = table
    x, y, w, h = rect
    cv2.rectangle(f, (x, y), (x + w - 1, y + h - 1), felt, -1)
    for dx, dy in dice:
        cv2.rectangle(f, (dx, dy), (dx + 40, dy + 40), (235, 235, 235), -1)
    n = rng.normal(0, noise, f.shape)
    return np.clip(f.astype(np.float32) + n, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("rect", [(120, 90, 400, 300), (40, 30, 300, 260), (200, 60, 400, 400)])
def test_find_tray_finds_the_felt(rect):
    found = find_tray(
        tray_frame(rect, dice=[(rect[0] + rect[2] // 2 - 20, rect[1] + rect[3] // 2 - 20)])
    )
    for got, want in zip(found.rect, rect, strict=True):
        assert abs(got - want) <= 10
    x, y, w, h = found.crop
    assert w * 3 == h * 4 or abs(w / h - 4 / 3) < 0.01
    assert x <= rect[0] and y <= rect[1]
    assert x + w >= rect[0] + rect[2] - 4 and y + h >= rect[1] + rect[3] - 4
    assert 0 <= x and 0 <= y and x + w <= 640 and y + h <= 480
    assert all(abs(a - b) <= 6 for a, b in zip(found.felt_bgr, FELT, strict=True))


def test_find_tray_full_frame_needs_no_crop():
    found = find_tray(tray_frame((0, 0, 640, 480), dice=[(300, 200), (100, 100)]))
    assert found.whole_frame and found.crop == []


def test_find_tray_with_uneven_light():
    frame = tray_frame().astype(np.float32)
    ramp = np.linspace(0.75, 1.2, 640, dtype=np.float32)[None, :, None]
    frame = np.clip(frame * ramp, 0, 255).astype(np.uint8)
    found = find_tray(frame)
    assert abs(found.rect[0] - 120) <= 12 and abs(found.rect[2] - 400) <= 20


def test_find_tray_refuses_clutter():
    rng = np.random.default_rng(1)
    blocks = rng.integers(0, 256, (12, 16, 3), dtype=np.uint8)  # a mosaic of 40 px patches
    clutter = cv2.resize(blocks, (640, 480), interpolation=cv2.INTER_NEAREST)
    with pytest.raises(CalibrationError, match="could not find the tray"):
        find_tray(clutter)


def test_expand_to_aspect_stays_inside():
    assert expand_to_aspect([0, 0, 640, 480], margin=0.1) == [0, 0, 640, 480]
    x, y, w, h = expand_to_aspect([500, 400, 140, 80])
    assert x + w <= 640 and y + h <= 480 and abs(w / h - 4 / 3) < 0.02


def test_felt_gains():
    grey = felt_gains((100, 105, 120))
    balanced = [c * g for c, g in zip((100, 105, 120), grey.gains, strict=True)]
    assert max(balanced) - min(balanced) < 1.0 and "neutral" in grey.how
    green = felt_gains(FELT)
    assert green.gains == [1.0, 1.0, 1.0] and "coloured felt" in green.how
    dark_green = felt_gains((20, 50, 15))
    assert dark_green.gains[0] == dark_green.gains[1] > 1.0  # brightened, colour kept
    ref = felt_gains((50, 100, 40), reference_bgr=(60, 120, 40))
    assert ref.gains == [1.2, 1.2, 1.0]


class FakeAutoCam:
    """A Pi camera whose automatic exposure converges after a few frames."""

    def __init__(self):
        self.n = 0
        self.fixed = None
        self.auto = False

    def set_auto(self):
        self.auto = True

    def set_fixed(self, e, g, c):
        self.fixed = (e, g, c)

    def read(self, timeout=1.0):
        self.n += 1
        return np.zeros((480, 640, 3), np.uint8)

    def metadata(self):
        k = min(self.n, 10)
        return {
            "ExposureTime": 20000 - 1000 * k,
            "AnalogueGain": 4.0 - 0.2 * k,
            "ColourGains": (1.5 + 0.03 * k, 1.2 + 0.02 * k),
        }


def test_converge_picamera_waits_until_settled():
    cam = FakeAutoCam()
    values = converge_picamera(cam, frames=60, out=lambda *_: None)
    assert cam.auto
    assert values == {"exposure_us": 10000, "analogue_gain": 2.0, "colour_gains": [1.8, 1.4]}
    assert cam.fixed == (10000, 2.0, [1.8, 1.4])
    assert 15 <= cam.n < 60  # stopped once six frames agreed


# --- the whole command on a stand-in renderer and recognizer -------------------------------


def fake_render_module():
    """Renders a green felt tray with white squares for dice; truth as hardware.sim.render does."""
    mod = types.ModuleType("hardware.sim.render")

    def random_style(rng):
        return None

    def scene(dice):
        f = tray_frame((80, 60, 480, 360), noise=2)
        for i, _ in enumerate(dice):
            cv2.rectangle(f, (300 + 50 * i, 220), (340 + 50 * i, 260), (235, 235, 235), -1)
        return f

    def labels(dice):
        return [
            {"x": 300 + 50 * i, "y": 220, "w": 40, "h": 40, "die": d, "face": fc}
            for i, (d, fc) in enumerate(dice)
        ]

    def render_scene(diceset, dice, rng, size=(640, 480), style=None):
        return scene(dice), labels(dice)

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
        for i in range(3):
            yield scene(dice), {"phase": "moving", "labels": labels(dice), "frame": i}
        for i in range(rest_frames):
            yield scene(dice), {"phase": "rest", "labels": labels(dice), "frame": 3 + i}

    mod.random_style, mod.render_scene, mod.render_throw = random_style, render_scene, render_throw
    return mod


class TruthRecognizer:
    """Reads the simulated tray's truth (a stand-in for vision.pipeline.Recognizer);
    ``wrong`` lists die:face specs it misreads."""

    tray = None

    def __init__(self, wrong=()):
        self.wrong = set(wrong)
        self.frames = 0

    def read(self, frame):
        assert frame.shape == (480, 640, 3)
        self.frames += 1
        dice = []
        for lab in self.tray.truth.get("labels", []):
            spec = f"{lab['die']}:{lab['face']}"
            face = None if spec in self.wrong else lab["face"]
            dice.append(DieReading(lab["x"], lab["y"], lab["w"], lab["h"], lab["die"], face, 0.97))
        return FrameReading(tuple(dice), empty=not dice)


@pytest.fixture
def sim_env(monkeypatch):
    import hardware.sim
    from hardware import camera

    mod = fake_render_module()
    monkeypatch.setitem(sys.modules, "hardware.sim.render", mod)
    monkeypatch.setattr(hardware.sim, "render", mod, raising=False)
    made = {}
    real_sim = camera.SimulatedTray

    class Tracked(real_sim):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            TruthRecognizer.tray = self

    monkeypatch.setattr(camera, "SimulatedTray", Tracked)

    def recognizer_factory(wrong=()):
        def make(diceset, taught=None):
            made["r"] = TruthRecognizer(wrong)
            return made["r"]

        monkeypatch.setattr(calibrate, "make_recognizer", make)

    return recognizer_factory


def run(argv):
    lines = []
    code = calibrate.main(argv, out=lines.append, ask=lambda *_: "")
    return code, "\n".join(lines)


def test_calibrate_sim_end_to_end_writes_config(sim_env, tmp_path):
    sim_env()
    cfg_path = tmp_path / "config.toml"
    cfg_path.write_text("# mine\n[pins]\nbuttons = [17, 27]\n", encoding="utf-8")
    code, text = run(
        ["--source", "sim", "--dice-set", "tally-up", "--config", str(cfg_path), "--write"]
    )
    assert code == 0, text
    for step in ("Step 1/4", "Step 2/4", "Step 3/4", "Step 4/4"):
        assert step in text
    # every distinct face of every Tally Up! die was thrown and read
    assert "red:(200)" in text and "up:x2" in text and "NOT OK" not in text
    cfg = load_config(cfg_path)
    x, y, w, h = cfg.camera.crop
    assert abs(x - 80) <= 25 and abs(y - 60) <= 25 and abs(w / h - 4 / 3) < 0.02
    assert cfg.camera.software_gains == [1.0, 1.0, 1.0]  # coloured felt
    assert cfg.pins.buttons == [17, 27] and cfg_path.read_text().startswith("# mine")


def test_calibrate_reports_a_misread_face(sim_env, tmp_path):
    sim_env(wrong={"blue:(100)"})
    code, text = run(
        [
            "--source",
            "sim",
            "--dice-set",
            "tally-up",
            "--faces",
            "all",
            "--config",
            str(tmp_path / "c.toml"),
        ]
    )
    assert code == 1
    assert "NOT OK (die found but not read)" in text
    assert "Run again with --write" in text
    assert not (tmp_path / "c.toml").exists()


def test_calibrate_replay_without_check(tmp_path):
    d = tmp_path / "frames"
    d.mkdir()
    for i in range(3):
        cv2.imwrite(
            str(d / f"{i:03d}.png"), tray_frame((100, 80, 420, 320), felt=(100, 104, 118), seed=i)
        )
    cfg_path = tmp_path / "c.toml"
    code, text = run(
        [
            "--source",
            f"replay:{d}",
            "--no-check",
            "--write",
            "--config",
            str(cfg_path),
            "--snapshot",
            str(tmp_path / "tray.png"),
        ]
    )
    assert code == 0, text
    cam = load_config(cfg_path).camera
    assert cam.crop and abs(cam.crop[0] - 100) <= 25
    g = cam.software_gains
    assert g[0] > 1.0 > g[2]  # the warm grey felt is balanced
    # the empty tray's light as the table sees it (cropped, balanced): a neutral grey
    assert len(cam.tray_light) == 3 and max(cam.tray_light) - min(cam.tray_light) < 12
    assert "dice check skipped" in text
    assert cv2.imread(str(tmp_path / "tray.png")).shape == (480, 640, 3)


def test_calibrate_clear_errors(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("[camera]\nsource = 5\n", encoding="utf-8")
    assert calibrate.main(["--config", str(bad)], out=lambda *_: None) == 2
    assert "camera.source" in capsys.readouterr().err
    assert (
        calibrate.main(
            ["--source", f"replay:{tmp_path / 'none'}", "--config", str(tmp_path / "c.toml")],
            out=lambda *_: None,
        )
        == 2
    )
    assert "does not exist" in capsys.readouterr().err
    assert (
        calibrate.main(
            ["--dice-set", "chess", "--config", str(tmp_path / "c.toml")], out=lambda *_: None
        )
        == 2
    )
    assert "unknown dice set 'chess'" in capsys.readouterr().err


class ScriptedSource:
    """Frames that show each placed die after a few empty frames."""

    def __init__(self, readings):
        self.readings = list(readings)

    def read(self, timeout=1.0):
        return np.zeros((480, 640, 3), np.uint8)


class ScriptedRecognizer:
    def __init__(self, plan):
        self.plan = list(plan)

    def read(self, frame):
        return self.plan.pop(0) if self.plan else FrameReading()


def one(die, face, conf=0.9):
    return FrameReading((DieReading(300, 200, 40, 40, die, face, conf),))


def test_check_placed_dice_waits_for_a_steady_reading():
    from vision.dicesets import load

    d6 = load("d6")
    plan = [FrameReading(empty=True)] * 3 + [one("d6", "4", 0.8)] * 2 + [one("d6", "5", 0.95)] * 5
    ticks = iter(range(1000))
    asked = []

    def ask(prompt):
        asked.append(prompt)
        raise EOFError

    rows = check_placed_dice(
        ScriptedSource([]),
        ScriptedRecognizer(plan),
        d6,
        ask=ask,
        clock=lambda: next(ticks) * 0.1,
        out=lambda *_: None,
    )
    assert len(asked) == 1 and "d6 die" in asked[0]
    assert rows[0].read == "d6:5" and rows[0].ok and rows[0].confidence == pytest.approx(0.95)


def test_check_placed_dice_times_out_when_nothing_is_read():
    from vision.dicesets import load

    ticks = iter(range(1000))
    rows = check_placed_dice(
        ScriptedSource([]),
        ScriptedRecognizer([]),
        load("d6"),
        ask=lambda *_: "",
        wait_s=2.0,
        clock=lambda: next(ticks) * 0.1,
        out=lambda *_: None,
    )
    assert not rows[0].ok and rows[0].note == "no die found"


def test_real_pipeline_on_simulated_tray(tmp_path):
    from vision.dicesets import load

    calibrate.make_recognizer(load("d6"))  # the shipped models load
    code, text = run(
        [
            "--source",
            "sim",
            "--dice-set",
            "d6",
            "--faces",
            "one",
            "--config",
            str(tmp_path / "c.toml"),
        ]
    )
    assert "Step 4/4" in text and "d6:" in text
    assert code in (0, 1)


def test_a_stale_taught_folder_is_said_when_the_dice_check_opens(tmp_path, capsys, taught_copy):
    """A taught folder whose card names another shipped classifier than the one installed
    (dicetray updated since it was taught) reads alone; ``calibrate`` says so on stderr, as
    ``recognize``, ``play``, ``demo`` and the guided capture do (``say_stale``). A folder
    taught beside the installed network says nothing."""
    from vision.classcard import model_paths
    from vision.dicesets import load
    from vision.onnx import file_sha256

    same = taught_copy(tmp_path / "same", shipped_sha256=file_sha256(model_paths("d6")[0]))
    calibrate.make_recognizer(load("d6"), same)
    assert capsys.readouterr().err == ""
    rec = calibrate.make_recognizer(
        load("d6"), taught_copy(tmp_path / "old", shipped_sha256="0" * 64)
    )
    err = capsys.readouterr().err
    assert rec.classifier.stale and err.startswith(
        "dicetray calibrate: the shipped d6 classifier has changed since"
    )
