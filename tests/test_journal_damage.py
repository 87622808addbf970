"""A journal under damage and hostile input: checksums, salvage, bounded reading, clear words."""

from __future__ import annotations

import random
import tracemalloc
import zlib
from pathlib import Path

import pytest

from tray.replay import main_replay
from tray.rules.engine import RuleError, action, roll
from tray.rules.journal import Journal, JournalError, JournalWriteError

LAYOUT = {"d6": ["1", "2", "3", "4", "5", "6"]}
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "journals"


def game(tmp_path, n=5):
    j = Journal.create(tmp_path / "g.jsonl", "bank", ["Ann", "Ben"], {"rounds": 10}, LAYOUT)
    rng = random.Random(1)
    while len(j.events) < n:
        try:
            j.append(roll(f"d6:{rng.randint(1, 6)}", f"d6:{rng.randint(1, 6)}"))
        except RuleError:
            j.append(action(0, "bank"))
    return j


def test_a_deeply_nested_line_is_a_clear_error_naming_the_file(tmp_path, capsys):
    old = tmp_path / "old.jsonl"  # the case: a finished (checksum-less) journal
    old.write_bytes(
        (FIXTURES / "bank.jsonl").read_bytes() + b"[" * 100_000 + b"]" * 100_000 + b"\n"
    )
    with pytest.raises(JournalError, match=r"nests .* too deeply") as info:
        Journal.open(old)
    assert str(old) in str(info.value)
    assert main_replay([str(old)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(old) in err and "Traceback" not in err
    j = game(tmp_path)  # a checksummed line that is deep all the same
    body = b'{"type": "roll", "dice": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"
    with open(j.path, "ab") as f:
        f.write(body[:-1] + b', "crc": "%08x"}\n' % zlib.crc32(body))
    with pytest.raises(JournalError, match=r"nests .* too deeply") as info:
        Journal.open(j.path)
    assert info.value.kept == 5


def test_every_single_bit_flip_is_found(tmp_path):
    j = game(tmp_path, 6)
    data = j.path.read_bytes()
    header_end = data.index(b"\n") + 1
    body = len(data) - header_end - 1  # the last newline: flipping it only cuts the line
    rng = random.Random(7)
    for _ in range(300):
        pos = header_end + rng.randrange(body)
        bad = bytearray(data)
        bad[pos] ^= 1 << rng.randrange(8)
        j.path.write_bytes(bytes(bad))
        try:
            k = Journal.open(j.path)
        except JournalError:
            continue
        # the only silent outcome allowed: the flip hit the last line, read as cut off
        assert k.partial_tail and k.events == j.events[: len(k.events)], pos


def test_a_damaged_middle_line_offers_the_good_prefix_and_keeps_the_file(tmp_path, capsys):
    j = game(tmp_path, 8)
    text = j.path.read_text().splitlines(keepends=True)
    text[4] = text[4].replace("d6:", "d6:x", 1)
    j.path.write_text("".join(text))
    original = j.path.read_bytes()
    with pytest.raises(JournalError, match=r"line 5: .*checksum.*The 3 events before it are good"):
        Journal.open(j.path)
    k = Journal.open(j.path, salvage=True)
    assert k.damage is not None and k.damage.kept == 3 and k.events == j.events[:3]
    assert j.path.read_bytes() == original  # opening changes nothing
    k.append(_next_event(k))
    assert (j.path.parent / "g.jsonl.damaged").read_bytes() == original
    again = Journal.open(j.path)
    assert again.damage is None and len(again.events) == 4
    assert main_replay([str(j.path)]) == 0


def _next_event(j):
    e = j.expect()
    return roll("d6:2", "d6:3") if e.roll is not None else e.decisions[0].choices[0]


def test_errors_quote_a_short_excerpt_only(tmp_path):
    j = game(tmp_path)
    with open(j.path, "ab") as f:
        f.write(b'{"type": "' + b"x" * 2_000_000 + b'"}\n')
    with pytest.raises(JournalError) as info:
        Journal.open(j.path)
    assert len(str(info.value)) < 600
    legacy = tmp_path / "old.jsonl"
    legacy.write_text(
        (FIXTURES / "bank.jsonl").read_text().splitlines()[0]
        + "\n"
        + '{"type": "'
        + "t" * 5000
        + '"}\n'
    )
    with pytest.raises(JournalError, match="unknown event type") as info:
        Journal.open(legacy)
    assert len(str(info.value)) < 600


def test_a_100_mb_line_is_refused_without_reading_it_whole(tmp_path):
    j = game(tmp_path)
    with open(j.path, "ab") as f:
        f.write(b'{"type": "roll", "dice": ["' + b"d" * 100_000_000)
        f.write(b'"]}\n')
    tracemalloc.start()
    try:
        with pytest.raises(JournalError, match="longer than") as info:
            Journal.open(j.path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info.value.kept == 5
    assert peak < 20_000_000, peak


def test_a_utf16_journal_says_so(tmp_path):
    j = game(tmp_path)
    utf16 = tmp_path / "u16.jsonl"
    utf16.write_bytes(j.path.read_text().encode("utf-16"))
    with pytest.raises(JournalError, match="UTF-16"):
        Journal.open(utf16)
    utf16.write_bytes(j.path.read_text().encode("utf-16-le"))  # no byte order mark
    with pytest.raises(JournalError, match="UTF-16"):
        Journal.open(utf16)
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + j.path.read_bytes())
    assert Journal.open(bom).events == j.events


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.jsonl")))
def test_journals_written_before_checksums_still_read(name, tmp_path):
    j = Journal.open(FIXTURES / name)
    assert j.finished and not j.checksummed
    copy = tmp_path / name
    copy.write_bytes((FIXTURES / name).read_bytes())
    k = Journal.open(copy)
    k.undo()  # writing to an old journal appends a checksummed line: both read back
    assert len(Journal.open(copy).events) == len(j.events) - 1


def test_a_full_disk_loses_nothing_already_written(tmp_path, monkeypatch):
    j = game(tmp_path)
    before = j.path.read_bytes()
    state = j.state
    real_open = open

    class Full:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *a):
            self.f.close()

        def seek(self, n):
            self.f.seek(n)

        def write(self, data):
            self.f.write(data[: len(data) // 2])  # half the line reaches the disk
            self.f.flush()
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(
        "builtins.open",
        lambda p, mode="r", *a, **k: (
            Full(real_open(p, mode)) if mode == "r+b" else real_open(p, mode, *a, **k)
        ),
    )
    with pytest.raises(JournalWriteError, match="disk full"):
        j.append(_next_event(j))
    monkeypatch.undo()
    assert j.state == state and Journal.open(j.path).state == state
    assert j.path.read_bytes().startswith(before)
    j.append(_next_event(j))  # space again: the half line is replaced
    assert len(Journal.open(j.path).events) == 6


@pytest.mark.parametrize(
    "event, words",
    [
        (action(True, "bank"), "seat number"),
        (action(1.0, "bank"), "seat number"),
        (action(0, "bank", note="x"), "no key 'note'"),
        (action(0, "bank", note=float("nan")), "plain JSON"),
        ({"type": "roll", "dice": ["d6:1", "d6:2"], "extra": 1}, "no key 'extra'"),
        (roll("d6:1", "d6:9"), "no face 9"),
    ],
)
def test_loose_events_are_refused_before_writing(tmp_path, event, words):
    j = game(tmp_path)
    before = j.path.read_bytes()
    with pytest.raises(RuleError, match=words):
        j.append(event)
    assert j.path.read_bytes() == before


def test_nan_and_floats_are_refused_in_game_keys(tmp_path):
    from tray.rules.engine import check_event

    keys = {"mark": ("number",), "apply": ("stars",)}
    for bad, words in (
        (action(0, "mark", number=6.0), "decimal"),
        (action(0, "mark", number=float("nan")), "not a number"),
        (action(0, "mark", number=float("inf")), "not a number"),
        (action(0, "mark", number=True), "true, false"),
        (action(0, "apply", stars=[5.0]), "decimal"),
    ):
        with pytest.raises(RuleError, match=words):
            check_event(bad, keys)
    check_event(action(0, "mark", number=6), keys)
