"""How teaching judges a head: each die read by heads fitted without its photo (cross-
validation by photo), and what is chosen on those reads: the pull, the view, which opinions
are heard, the thresholds that bound the wrong reads, whether the shipped models back the
head, and whether it is kept (``vision.teach``).
"""

from __future__ import annotations

import numpy as np

from vision import risk
from vision.classify import TURNS, FaceClassifier
from vision.head import Head, Hearing, best_pair, blend, decide

# tried in this order; a tie keeps the first, and the first is kept unless another reads this
# share of the dice more (``choose_hearing``)
SWITCH_GAIN = 0.02
HEARINGS = tuple(
    Hearing(pips, shipped, turns)
    for turns in (True, False)
    for shipped in (True, False)
    for pips in (True, False)
)
# a taught read is never taken below this score, whatever the calibration allows: under one
# half the head itself finds the read likelier wrong than right (with few dice, none of them
# read wrong, the bound would let the threshold fall to the least sure of them)
FLOOR = 0.5
# the pulls of the head's weights towards the shipped answer tried, strongest first: the
# first is kept unless another's head reads more held-out dice right, and not by chance
# (``choose_pull``). Measured (cross-validated, reads right at the bound): a strong pull
# (1.0) helped the real sources (rune55 i_single 11 -> 35 of 74 dice); a weak one helps dice
# the shipped network reads badly (Rollers with digits, rendered: 89 -> 96 of 100)
PULLS = (1.0, 0.1, 0.01)
# ... another pull is taken only when, of the dice the two heads read differently (one right,
# the other not), so many go its way that a coin would do it less often than this (a sign
# test): a weaker pull gives up the shipped network's hold on the head, and the photos of a
# few dice can't vouch for that (rune55 PXL_phone, 58 dice taught: 45 read right against 43
# at pull 1.0, then 4 of 25 fresh dice read wrong against 2 of 26)
PULL_TEST = 0.05
# the heads tried, (pull, zoomed): each pull on the crop alone, then with its zoomed view
# beside it (``vision.head.ZOOM``; twice the network's work per read at the table, so only
# where it reads more, by the same test)
VIEWS = tuple((pull, zoom) for zoom in (False, True) for pull in PULLS)


def fit(arrays, rows, pull: float, zoom: bool = False) -> Head:
    """A head fitted on the crops ``rows``; ``zoom``: on their zoomed views too (every crop
    was embedded both ways, its own embedding first)."""
    emb, die_p, face_p, _photo, face_y, die_y, _die, _turn = arrays
    e = emb[rows] if zoom else emb[rows, : emb.shape[1] // 2]
    return Head.fit(e, die_p[rows], face_p[rows], face_y[rows], die_y[rows], pull, zoom=zoom)


def cross_validate(
    arrays,
    folds,
    die_photo,
    clf,
    counted,
    view: tuple[float, bool],
    tick,
    second=None,
    opinions: dict | None = None,
) -> tuple[dict, dict]:
    """Each die read by a head (``view``: pulled by its pull, zoomed or not, see ``VIEWS``)
    fitted without its fold's photos, in
    each way of hearing (``HEARINGS``): {hearing: {turns: [(best pair, score) per die]}},
    as it is and shrunk to a small die's size (``counted``: the pips counted on each, see
    :func:`vision.teachcrops.read_photos`); with ``second``
    (:meth:`vision.teachcrops.Readings.second_arrays`), the second opinion's head, fitted
    alike, blended with it (:func:`vision.head.blend`, as a folder taught now is read); its
    reads are kept in ``opinions`` by fold and pull (the zoomed and the plain views share
    them). ``tick(f)`` is called when fold ``f`` is done."""
    photo_of = arrays[3]
    n = len(die_photo)
    opinions = {} if opinions is None else opinions
    heard = {h: {1: [None] * n, TURNS: [None] * n} for h in HEARINGS}
    heard_small = {h: {1: [None] * n, TURNS: [None] * n} for h in HEARINGS}
    for f, fold in enumerate(folds):
        rows = np.flatnonzero(~np.isin(photo_of, fold))
        head = fit(arrays, rows, *view)
        dice = [d for d in range(n) if die_photo[d] in fold]
        if second is not None and (f, view[0]) not in opinions:
            head2 = fit_second(second, arrays, rows, view[0])
            opinions[f, view[0]] = [
                _opinions(head2, second, arrays, dice, s) for s in (False, True)
            ]
        for shrunk, into in ((False, heard), (True, heard_small)):
            probs = _head_reads(head, arrays, dice, shrunk)
            if second is not None:
                probs = [
                    (blend(td, dp), blend(tf, fp), sd, sf)
                    for (td, tf, sd, sf), (dp, fp) in zip(
                        probs, opinions[f, view[0]][shrunk], strict=True
                    )
                ]
            for hearing, reads in into.items():
                got = _probe_reads(probs, clf, dice, counted[shrunk], hearing)
                for turns in (1, TURNS):
                    for d, read in zip(dice, got[turns], strict=True):
                        reads[turns][d] = read
        tick(f)
    return heard, heard_small


def _straight(arrays, shrunk: bool = False) -> np.ndarray:
    """The rows of each die's four straight turns, upright first: dice x ``TURNS``; of the
    die shrunk to a small die's size with ``shrunk``."""
    die, turn = arrays[6], arrays[7]
    first = TURNS if shrunk else 0
    rows = np.flatnonzero((turn >= first) & (turn < first + TURNS))
    return rows[np.lexsort((turn[rows], die[rows]))].reshape(-1, TURNS)


def fit_second(second, arrays, rows, pull: float) -> Head:
    """The second opinion's head: fitted as :func:`fit` fits the first, on the second
    network's features and answers."""
    feats, die_p, face_p = second
    face_y, die_y = arrays[4], arrays[5]
    return Head.fit(feats[rows], die_p[rows], face_p[rows], face_y[rows], die_y[rows], pull)


def _opinions(head: Head, second, arrays, dice: list[int], shrunk: bool = False) -> list:
    """The second opinion's probabilities of each of ``dice`` at its four straight turns,
    upright first: [(die_p, face_p), each turns x classes]; of the dice shrunk with
    ``shrunk``."""
    feats, die_p, face_p = second
    straight = _straight(arrays, shrunk)
    return [head.proba_embedded(feats[rows], die_p[rows], face_p[rows]) for rows in straight[dice]]


def choose_pull(tried: list, truth, against=None):
    """Of ``tried`` ((pull, hearing's choice) in ``PULLS`` order), the first unless another
    head reads more held-out dice right at its thresholds, and the dice it and ``against``
    (the first, unless given) read differently go its way beyond chance (``PULL_TEST``); of
    several such, the one that reads most (the first on a tie)."""
    first = _right(tried[0], truth)
    base = first if against is None else _right(against, truth)
    best, most = tried[0], len(first)
    for t in tried[1:]:
        r = _right(t, truth)
        if len(r) > most and risk.sign_test(len(r - base), len(base - r)) <= PULL_TEST:
            best, most = t, len(r)
    return best


def _right(t, truth) -> set[int]:
    """The dice a head's choice ``t`` ((view, hearing's choice)) reads right at four turns."""
    reads, photo = t[1][1][TURNS], t[1][2]
    return {
        d
        for d, ((pair, score), want) in enumerate(zip(reads, truth, strict=True))
        if score >= photo.threshold and pair == want
    }


def choose_view(tried: list, truth):
    """Of ``tried`` ((view, hearing's choice) in ``VIEWS`` order): the zoomed heads when the
    most any of them reads right beats the plain heads' most by ``SWITCH_GAIN`` of the dice
    and 2 dice at least (as a hearing is chosen: a die or so is chance, and the zoomed view
    doubles the table's work), else the plain ones; of those, the pull ``choose_pull``
    chooses, a weaker one tested against the strongest plain head (the shipped network's
    hold on it, as the plain pulls are)."""
    most = {z: max(len(_right(t, truth)) for t in tried if t[0][1] == z) for z in (False, True)}
    zoom = most[True] - most[False] >= max(2, SWITCH_GAIN * len(truth))
    return choose_pull([t for t in tried if t[0][1] == zoom], truth, against=tried[0])


def _head_reads(head: Head | None, arrays, dice: list[int], shrunk: bool = False) -> list:
    """Each of ``dice`` (shrunk, with ``shrunk``) at its four straight turns as ``head`` (None:
    the shipped network) and the shipped network read it: [(head's die_p, face_p, shipped
    die_p, face_p)], each turns x classes."""
    emb, die_p, face_p = arrays[:3]
    straight = _straight(arrays, shrunk)
    out = []
    for d in dice:
        rows = straight[d]
        sd, sf = die_p[rows], face_p[rows]
        if head is None:
            td, tf = sd, sf
        else:
            td, tf = head.proba_embedded(emb[rows, : len(head.mean)], sd, sf)
        out.append((td, tf, sd, sf))
    return out


def _probe_reads(probs: list, clf, dice: list[int], counted, hearing: Hearing = HEARINGS[0]):
    """The dice ``dice`` read from their four straight turns (``probs``: :func:`_head_reads`;
    ``counted``: the pips counted on each die): for each path (1: the camera's one read,
    TURNS: a photo's four) a list of (best pair, score) by ``decide``, heard as ``hearing``
    says (the pips counted on each die's crop, the shipped network, the turns)."""
    out = {1: [], TURNS: []}
    for d, (td, tf, sd, sf) in zip(dice, probs, strict=True):
        for turns in (1, TURNS):
            out[turns].append(
                decide(
                    td[:turns],
                    tf[:turns],
                    sd[:turns],
                    sf[:turns],
                    clf.pairs,
                    clf.pip_opinion(counted[d]) if hearing.pips else None,
                    heed=hearing.shipped,
                    doubt_turns=hearing.turns,
                )
            )
    return out


def tally(answers, truth) -> dict:
    """Figures of answers (a (die, face) pair, or None: asked) against the truth."""
    right = sum(a == t for a, t in zip(answers, truth, strict=True) if a is not None)
    wrong = sum(a is not None for a in answers) - right
    n = max(len(truth), 1)
    return {
        "dice": len(truth),
        "face_right": round(right / n, 4),
        "abstained": round((len(truth) - right - wrong) / n, 4),
        "wrong": round(wrong / n, 4),
        "wrong_count": wrong,
    }


def _camera_answers(reads, t1: float, t4: float) -> list:
    """What the table's camera loop answers: a die read once, and when that is in doubt on
    a still frame, read again at four turns (``vision.frameread.read_boxes(retry=True)``)."""
    out = []
    for (p1, s1), (p4, s4) in zip(reads[1], reads[TURNS], strict=True):
        out.append(p1 if s1 >= t1 else p4 if s4 >= t4 else None)
    return out


def _choose_camera(reads, truth, t4: float, alpha: float, delta: float) -> risk.Choice:
    """The threshold of one read, the four-turn read behind it at ``t4``, tested from the
    surest one-turn read down (``vision.risk.choose_sequence``)."""
    steps = []
    for t1 in [risk.NEVER, *sorted({s for _, s in reads[1] if s >= FLOOR}, reverse=True)]:
        answers = _camera_answers(reads, t1, t4)
        read = sum(a is not None for a in answers)
        steps.append(
            (t1, read, sum(a is not None and a != t for a, t in zip(answers, truth, strict=True)))
        )
    return risk.choose_sequence(steps, len(truth), alpha, delta, lowest=FLOOR)


def choose_hearing(heard: dict, truth, alpha: float, delta: float):
    """How the taught head scores a die (``HEARINGS``), chosen on the cross-validated reads
    ``heard[hearing]``: the one that reads most dice right at its thresholds (all keep the
    same bound on wrong reads), the first on a tie; the first of all (every opinion heard)
    unless another reads ``SWITCH_GAIN`` of the dice more, and 2 dice at least (a gain of a
    die or so is chance, and choosing on chance spends the bound on it). An owner's dice
    whose marks the pip counter misreads (digits for pips, a logo) would otherwise be asked
    about on every such face; dice the shipped network reads wrong for sure would have the
    head's word discounted; digits that look like other digits turned would be doubted at
    every turn. Returns (hearing, its reads, photo threshold, camera threshold)."""
    tried = []
    for hearing in HEARINGS:
        reads = heard[hearing]
        wrong4 = [p != t for (p, _), t in zip(reads[TURNS], truth, strict=True)]
        photo = risk.choose(
            [sc for _, sc in reads[TURNS]], wrong4, alpha, delta, FLOOR, lowest=True
        )
        camera = _choose_camera(reads, truth, photo.threshold, alpha, delta)
        tried.append((photo.read - photo.wrong, hearing, reads, photo, camera))
    best = max(tried, key=lambda t: t[0])  # the first of the best
    if best[0] < tried[0][0] + max(2, SWITCH_GAIN * len(truth)):
        best = tried[0]
    return best[1:]


def shipped_reads(
    clf: FaceClassifier, arrays, truth, counted, shrunk: bool = False, second=None
) -> dict:
    """The shipped models alone on the same dice (shrunk, with ``shrunk``), at their own
    thresholds, with the pips counted heard as at the table (``FaceClassifier.read_outputs``);
    with ``second`` (:meth:`vision.teachcrops.Readings.second_arrays`), a read only where the
    second network's own answer (its mean over the same turns) names the same pair, as the
    table backs a head:
    ``{1: read once, TURNS: read at four turns, "camera": as the camera loop reads (once; in
    doubt, at four turns), "no_die": whether the read once calls it no die (then the camera
    loop reads it no more), "sure": {1: ..., TURNS: ...} the confidence of each read}``, the
    reads a (die, face) pair or None per die."""
    die_p, face_p = arrays[1:3]
    straight = _straight(arrays, shrunk)
    out: dict = {1: [], TURNS: [], "camera": [], "no_die": [], "sure": {1: [], TURNS: []}}
    for d in range(len(truth)):
        rows = straight[d]
        for turns in (1, TURNS):
            r = clf.read_outputs(die_p[rows], face_p[rows], turns, counted[d])
            pair = (r.die, r.face) if r.face is not None else None
            if pair is not None and second is not None:
                named, _q = best_pair(
                    second[1][rows[:turns]].mean(0), second[2][rows[:turns]].mean(0), clf.pairs
                )
                if named != pair:
                    pair = None
            out[turns].append(pair)
            out["sure"][turns].append(float(r.confidence))
            if turns == 1:
                out["no_die"].append(r.not_a_die > 0.5)
        once, four = out[1][-1], out[TURNS][-1]
        out["camera"].append(once if once is not None or out["no_die"][-1] else four)
    return out


def _first(*answers):
    """The first answer that reads the die (None when none does)."""
    return next((a for a in answers if a is not None), None)


def backing(reads, t4: float, t1: float, shipped: dict, truth) -> tuple[bool, dict]:
    """Whether the shipped models back the taught head (a die the head does not read is taken
    from the shipped models when they read it, as the table does under ``shipped_backs``),
    and the cross-validated answers of the reader the table will run: ``{"photo": ...,
    "camera": ...}``. They back it when they read none of the dice of the teaching photos
    wrong, on either path: dice unlike their drawing (a logo on the 6, digits for pips) that
    they read wrong for sure are then never taken from them."""
    head4 = [p if sc >= t4 else None for p, sc in reads[TURNS]]
    head_cam = _camera_answers(reads, t1, t4)
    back4 = [_first(h, sh) for h, sh in zip(head4, shipped[TURNS], strict=True)]
    # the camera loop: once (the head, then the shipped models), and a die neither read
    # once is read at four turns (the head, then the shipped models) unless called no die
    back_cam = [
        _first(p if sc >= t1 else None, s1, *((None, None) if no_die else (h4, s4)))
        for (p, sc), s1, h4, s4, no_die in zip(
            reads[1], shipped[1], head4, shipped[TURNS], shipped["no_die"], strict=True
        )
    ]
    backs = all(tally(shipped[path], truth)["wrong_count"] == 0 for path in (TURNS, "camera"))
    if backs:
        return True, {"photo": back4, "camera": back_cam}
    return False, {"photo": head4, "camera": head_cam}


def small_dice_answers(reads, t1: float, t4: float, shipped: dict, backs: bool, once: bool) -> list:
    """What the table answers of each die before the rule of small dice: (pair, the
    confidence the rule weighs) or None. The head's read at its thresholds, else the shipped
    models' when they back it; ``once``: the camera loop without a second opinion (a die
    read once, then at four turns when neither read it; see :func:`backing`)."""
    head4 = [(p, sc) if sc >= t4 else None for p, sc in reads[TURNS]]
    ship4 = [
        (p, sc) if p is not None and backs else None
        for p, sc in zip(shipped[TURNS], shipped["sure"][TURNS], strict=True)
    ]
    if not once:
        return [_first(h, s) for h, s in zip(head4, ship4, strict=True)]
    out = []
    for (p, sc), s1, sc1, h4, s4, no_die in zip(
        reads[1], shipped[1], shipped["sure"][1], head4, ship4, shipped["no_die"], strict=True
    ):
        first = (p, sc) if sc >= t1 else (s1, sc1) if s1 is not None and backs else None
        out.append(_first(first, *((None, None) if no_die else (h4, s4))))
    return out


def choose_small(answers, truth, alpha: float, delta: float) -> risk.Choice:
    """The threshold of dice under the teaching dice's size: the least confidence at which
    the table's answers of the teaching dice shrunk (:func:`small_dice_answers`) keep the bound,
    tested from the surest down as the others are (the table reads a die at most as low as
    the head's own thresholds allow, so lower candidates read no more)."""
    conf = [a[1] if a is not None else 0.0 for a in answers]
    wrong = [a is not None and a[0] != t for a, t in zip(answers, truth, strict=True)]
    return risk.choose(conf, wrong, alpha, delta, FLOOR, lowest=True)


def heldout_figures(reads, answers: dict, shipped: dict, truth) -> dict:
    """The cross-validated figures ``taught.json`` keeps: the taught reader's (``answers``),
    its best guesses', and the shipped models' alone on the same dice, for photos (four
    turns) and for the camera loop (``camera_path``)."""

    def best(turns: int) -> float:
        right = sum(p == t for (p, _), t in zip(reads[turns], truth, strict=True))
        return round(right / len(truth), 4)

    return {
        **tally(answers["photo"], truth),
        "best_guess_right": best(TURNS),
        "shipped_models": tally(shipped[TURNS], truth),
        "camera_path": {
            **tally(answers["camera"], truth),
            "best_guess_right": best(1),
            "shipped_models": tally(shipped["camera"], truth),
        },
    }


MISREADS = 3  # the surest wrong reads of teaching dice that teaching names to the owner


def surest_misreads(
    reads, truth, where, pips=None, pip_faces=None, n: int = MISREADS
) -> list[dict]:
    """The teaching dice that heads fitted without their photos read wrong, surest first (at
    most ``n``; a read scored 0, which no threshold takes, is left out): each one's photo and
    label (``where[d]``: (file, ``vision.labelled.Label``)), what it was read as, how sure.
    A taught threshold lets no teaching die be read wrong (``vision.risk``: with a few hundred
    dice no wrong read fits the bound), so the surest of them sets how sure every read must
    be: one die whose label is wrong makes the table ask about each die read less sure than
    it. The owner is shown it, to check its label (``summary``). ``pips``: the pips counted
    on each die's crop (``vision.pips``; None: no count), kept with it ("pips"), and
    whether that count is the face read's (``pip_faces``: {face: its pips}; "pips_read"): the
    geometric reader's word that the label is wrong.

    >>> from vision.labelled import Label
    >>> where = [("a.jpg", Label(10, 20, 30, 30, "d6", "5"))] * 3
    >>> reads = [(("d6", "2"), 0.97), (("d6", "3"), 0.8), (("d6", "4"), 0.0)]
    >>> truth = [("d6", "5"), ("d6", "3"), ("d6", "1")]
    >>> [(m["file"], m["box"], m["label"], m["read"], m["score"])
    ...  for m in surest_misreads(reads, truth, where)]
    [('a.jpg', [10.0, 20.0, 30.0, 30.0], ['d6', '5'], ['d6', '2'], 0.97)]
    >>> [(m["pips"], m["pips_read"])
    ...  for m in surest_misreads(reads, truth, where, [2, None, None], {"2": 2, "5": 5})]
    [(2, True)]
    """
    wrong = sorted(
        (
            (score, d)
            for d, ((pair, score), t) in enumerate(zip(reads, truth, strict=True))
            if tuple(pair) != tuple(t) and score > 0
        ),
        key=lambda w: (-w[0], w[1]),
    )
    out = []
    for score, d in wrong[:n]:
        file, lab = where[d]
        read = list(reads[d][0])
        count = None if pips is None or pips[d] is None else int(pips[d])
        out.append(
            {
                "file": file,
                "box": [round(float(v), 1) for v in (lab.x, lab.y, lab.w, lab.h)],
                "label": [lab.die, lab.face],
                "read": read,
                "score": round(float(score), 4),
                "pips": count,
                "pips_read": None if count is None else (pip_faces or {}).get(read[1]) == count,
            }
        )
    return out


def keeps(heldout: dict) -> bool:
    """Whether the head is kept: on the dice it never saw it reads at least as many right as
    the shipped models, as photos are read and as the camera reads."""
    cam = heldout["camera_path"]
    return (
        heldout["face_right"] >= heldout["shipped_models"]["face_right"]
        and cam["face_right"] >= cam["shipped_models"]["face_right"]
    )
