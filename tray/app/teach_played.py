"""Teaching from the rolls kept in play, chosen on the start screen.

``dicetray play`` keeps each roll the players corrected (``tray/table/played.py``). Once a
dice set's kept rolls hold enough dice, the start screen offers "Teach the tray your dice";
choosing it teaches from them (``vision.teach``, numpy and onnxruntime: seconds to a minute)
into the taught folder beside them, with teaching's progress on the screen, and says on the
start screen what the taught reader reads. The next game of the set reads with it.

>>> print(words({"heldout": {"dice": 84, "face_right": 0.976,
...                             "shipped_models": {"face_right": 0.81}}}))
... # doctest: +NORMALIZE_WHITESPACE
Taught from 84 dice: 98% read right by a reader that never saw them (81% before). The next
game reads with it
"""

from __future__ import annotations

from tray.screen.capture import TeachView
from tray.table.teaching import TeachingUnavailable, format_left, teach_folder


def words(record: dict) -> str:
    """The start screen's line on what teaching gave (teaching's ``taught.json`` record)."""
    h = record.get("heldout") or {}
    if h.get("kept_shipped_models") or "face_right" not in h:
        return (
            "Not taught yet: the kept rolls did not read better than the dice reader already "
            "does. Play on: teaching is offered again after more corrected rolls"
        )
    before = h.get("shipped_models", {}).get("face_right")
    return (
        f"Taught from {h['dice']} dice: {h['face_right']:.0%} read right by a reader that "
        f"never saw them"
        + (f" ({before:.0%} before)" if before is not None else "")
        + ". The next game reads with it"
    )


STOPPED = "Teaching stopped: the tray reads as before, and the kept rolls are kept for next time"


class _Stopped(Exception):
    """The players stopped teaching (raised out of teaching's progress callback)."""


def teach_played(played, display, teacher=None, stop=None) -> str:
    """Teach ``played`` (a ``PlayedRolls``) into its taught folder, teaching's progress drawn
    on ``display``; returns the start screen's line on how it went (never raises for bad
    photos or a missing teacher: the line says why). ``stop()``, asked at each step of
    teaching, True ends it there: teaching writes its folder whole at its end, so the one
    read before stays (:data:`STOPPED`). ``teacher``: ``vision.teach.teach``'s stand-in
    (tests)."""
    folder = played.folder
    note = f"{folder.photos} kept rolls, {len(folder.rows)} dice" if folder is not None else ""
    if stop is not None:
        note += (". " if note else "") + "A long press or Esc stops teaching"
    title = f"Teaching {played.diceset.name}"

    def on_screen(stage: str, done: int, total: int, left_s) -> None:
        display.draw(TeachView(title, stage, done, total, format_left(left_s), note))
        display.pg.event.pump()  # the window stays alive while teaching works
        if stop is not None and stop():
            raise _Stopped

    try:
        on_screen("reading the kept rolls", 0, 1, None)
        record = teach_folder(
            played.path, played.diceset, played.taught, on_screen=on_screen, teacher=teacher
        )
    except _Stopped:
        return STOPPED
    except TeachingUnavailable as exc:
        return str(exc)
    except ValueError as exc:  # vision.teach.TeachError: what the kept rolls lack, one line
        return f"Not taught: {exc}"
    return words(record)
