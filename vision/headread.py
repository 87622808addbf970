"""A taught head's reading of die crops, for the classifier of its dice set.

A taught folder (``dicetray teach``) holds a head fitted on the shipped network's features
(:mod:`vision.head`), the thresholds teaching set on its scores, which other opinions it
hears (the pips counted, the shipped network, a turn read as another face), and where the
card names a second network, a second head on that network's features, heard with the
first as teaching heard it (``vision.head.AGREED``). :func:`load_head` takes them from the
folder; a :class:`HeadReader` reads crops with them, through the network and the decision
rules of the :class:`~vision.classify.FaceClassifier` that holds it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.classcard import TURNS, shipped_second
from vision.crops import to_input
from vision.head import (
    AGREED,
    BLEND,
    Head,
    Hearing,
    best_pair,
    blend,
    decide,
    hear_pips,
    pooled,
    second_opinion,
)
from vision.onnx import file_sha256, open_session
from vision.taught import TaughtError, TaughtModel
from vision.types import CropReading


@dataclass
class HeadReader:
    """A taught head and what teaching chose for it."""

    head: Head
    cuts: dict[int, float]  # the least score of a face read once (key 1) and at TURNS turns
    hearing: Hearing  # which other opinions score a die (``vision.head.Hearing``)
    # its "shipped_backs": a die the head does not read is read as the shipped network
    # reads it
    backed: bool
    # the second opinion teaching heard with it: a head on the card's second network's
    # features: (the network's session, its input's name, the head); None where it heard none
    opinion: tuple | None = None
    # how the second head is heard (``vision.head.AGREED``): blended with the first, or
    # (a folder taught before) its best pair heard against the first's; as teaching set
    # its thresholds on it
    agreed: str = AGREED[0]

    def read(self, clf, crops, turns: int, quick: bool = False):
        """Readings by the taught head of the crops ``clf`` (the FaceClassifier holding it)
        cut: one call of the shipped network (answers and features at each turn), the head's
        probabilities, and ``vision.head.decide``'s score against the taught threshold of
        reads at ``turns`` turns; with the second opinion's, unless ``quick`` (then no face
        is taken on the head's word). A die the head does not read is read as the shipped
        network reads it where teaching chose so (``shipped_backs``), and where there is a
        second network only when its own answer names the same pair. Returns the readings
        and each crop's best (die, face) pair."""
        x = to_input(crops)
        n = len(x)
        if turns > 1:
            x = np.concatenate([np.rot90(x, k, (2, 3)) for k in range(turns)])
        die_s, face_s, emb = clf.answers_embedded(x, self.head.zoom)
        die_t, face_t = self.head.proba_embedded(emb, die_s, face_s)
        die_t, face_t = die_t.reshape(turns, n, -1), face_t.reshape(turns, n, -1)
        die_s, face_s = die_s.reshape(turns, n, -1), face_s.reshape(turns, n, -1)
        opinion = None
        # the second network's own best pair of each crop, which a backed read must be (where
        # there is a second network; a quick read has none, and takes no backed read either)
        second_names: list = [None] * n
        if self.opinion is not None and not quick:
            session, name, head2 = self.opinion
            die_2, face_2, feats_2 = session.run(
                ["die_prob", "face_prob", "features"], {name: np.ascontiguousarray(x)}
            )
            second_names = [
                best_pair(d, f, clf.pairs)[0]
                for d, f in zip(
                    die_2.reshape(turns, n, -1).mean(0),
                    face_2.reshape(turns, n, -1).mean(0),
                    strict=True,
                )
            ]
            die_2, face_2 = head2.proba_embedded(pooled(feats_2), die_2, face_2)
            die_2, face_2 = die_2.reshape(turns, n, -1), face_2.reshape(turns, n, -1)
            if self.agreed == BLEND:
                # the two heads read as one (``vision.head.blend``), turn by turn
                die_t, face_t = blend(die_t, die_2), blend(face_t, face_2)
            else:
                opinion = (die_2.mean(0), face_2.mean(0))
        cut = self.cuts.get(turns, self.cuts[TURNS])
        decided = [
            decide(
                die_t[:, i],
                face_t[:, i],
                die_s[:, i],
                face_s[:, i],
                clf.pairs,
                heed=self.hearing.shipped,
                doubt_turns=self.hearing.turns,
            )
            for i in range(n)
        ]
        pairs = [pair for pair, _ in decided]
        # the shipped network's own reading, by its own thresholds and pip rules: under
        # "shipped_backs" it reads a die the head does not (teaching saw it read none of the
        # teaching dice wrong)
        shipped, shipped_best = [None] * n, pairs
        asked: list[tuple] = [() for _ in range(n)]
        if self.backed:
            shipped, shipped_best, _ = clf.decide_turns(die_s, face_s, turns)
            asked = clf.pips_asked(shipped, shipped_best, turns)
        # the pips counted on the upright crop, heard as teaching heard them when it set the
        # thresholds (``vision.teach``): agreeing, they halve the doubt; counting another
        # number, no read. Counted only on crops whose best guess (the head's, or the second
        # opinion's, which may be read: ``second_opinion``) is a pip face.
        counts: list[int | None] = [None] * n
        if self.hearing.pips or self.backed:
            others = [()] * n
            if opinion is not None and self.hearing.pips:
                others = [
                    (best_pair(dp, fp, clf.pairs)[0][1],) for dp, fp in zip(*opinion, strict=True)
                ]
            counts = clf.pip_counts(
                crops,
                [
                    (face if self.hearing.pips else None, *more, *other)
                    for (_die, face), more, other in zip(pairs, asked, others, strict=True)
                ],
            )
        if self.backed:
            shipped = clf.pips_heard(shipped, shipped_best, counts, turns)
        out, best = [], []
        for i in range(n):
            dp, fp = die_t[:, i].mean(0), face_t[:, i].mean(0)
            pair, score = decided[i]
            pips = clf.pip_opinion(counts[i]) if self.hearing.pips else None
            score = hear_pips(pair, score, pips)
            if opinion is not None:
                pair, score = second_opinion(
                    pair,
                    score,
                    opinion[0][i],
                    opinion[1][i],
                    clf.pairs,
                    (die_s[:, i].mean(0), face_s[:, i].mean(0)) if self.hearing.shipped else None,
                    pips,
                    self.agreed,
                )
            elif self.opinion is not None and quick:
                score = 0.0  # (quick: not heard)
            best.append(pair)
            die_conf = float(dp[clf.dice.index(pair[0])])
            face_conf = float(fp[clf.faces.index(pair[1])])
            read = score >= cut
            out.append(
                CropReading(
                    pair[0] if read or die_conf >= cut else None,
                    pair[1] if read else None,
                    score,
                    face_conf,
                    die_conf,
                    float(fp[-1]),
                )
            )
            backed = shipped[i] is not None and shipped[i].face is not None
            if backed and self.opinion is not None:
                # where a second network is heard, the shipped network's read alone is not
                # enough (it reads dice unlike its training photos surer and wrong more often
                # than the two together): the second's own answer must name the same pair
                backed = second_names[i] == (shipped[i].die, shipped[i].face)
            if not read and backed:
                out[i] = shipped[i]
        return out, best


def load_head(
    taught: TaughtModel, set_id: str, meta: dict, onnx_path: Path
) -> tuple[HeadReader | None, dict[int, float] | None, str | None]:
    """The taught folder's head and its thresholds, for the shipped network ``onnx_path``
    of ``set_id`` whose card is ``meta``: (the reader, its thresholds of small dice, why it
    is set aside). A head fitted on another shipped network's features (dicetray updated
    since) is set aside, and so is one whose second opinion was heard with another second
    network than the card's: no reader then, nor thresholds, and a sentence saying why.
    :class:`~vision.taught.TaughtError`
    when the folder's head or thresholds are damaged."""
    record = taught.meta
    if record.get("base_models", {}).get("classifier") != file_sha256(onnx_path):
        stale = (
            f"the shipped {set_id} classifier has changed since "
            f"{taught.folder} was taught: its taught head no longer fits it, so the "
            "shipped models read alone; teach again (`dicetray teach`)"
        )
        return None, None, stale
    small_cuts = None
    try:
        cuts = record["thresholds"]["classifier"]
        head_cuts = {
            1: float(cuts["camera"]["threshold"]),
            TURNS: float(cuts["photo"]["threshold"]),
        }
        head = Head.load(taught.head)
        hearing = Hearing.from_cuts(cuts)
        # dice smaller than the teaching dice: the thresholds teaching set on its dice
        # shrunk to that size (a folder taught before has none: SMALL_SURE then)
        small = cuts.get("small")
        if small is not None:
            small_cuts = {
                1: float(small["camera"]["threshold"]),
                TURNS: float(small["photo"]["threshold"]),
            }
        backed = cuts.get("shipped_backs", False)
        if not isinstance(backed, bool):
            raise ValueError("shipped_backs must be true or false")
        opinion, agreed = None, AGREED[0]
        heard = cuts.get("second_opinion")
        if heard is not None:
            if not isinstance(heard, dict):
                raise ValueError("second_opinion must be a table")
            # a folder taught before the mean was heard set its thresholds on the lesser
            agreed = heard.get("agreed", "lesser")
            if agreed not in AGREED:
                raise ValueError(f"second_opinion: agreed must be one of {', '.join(AGREED)}")
            # its thresholds were set with the second opinion heard: without the network
            # it was taught beside, the head does not read at all
            # (shipped_second checked the file against the card's hash: not hashed again)
            path = shipped_second(set_id, meta)
            if path is None or meta["joint"]["sha256"] != heard["sha256"]:
                stale = (
                    f"the shipped {set_id} second network has changed since "
                    f"{taught.folder} was taught: its taught heads no longer fit "
                    "it, so the shipped models read alone; teach again (`dicetray teach`)"
                )
                return None, None, stale
            if taught.second_head is None:
                raise ValueError("its second opinion's head is missing")
            session = open_session(path)
            opinion = (session, session.get_inputs()[0].name, Head.load(taught.second_head))
        return HeadReader(head, head_cuts, hearing, backed, opinion, agreed), small_cuts, None
    except (KeyError, TypeError, ValueError) as exc:
        raise TaughtError(
            f"{taught.folder}: its head or thresholds are damaged ({exc}): teach it "
            "again with `dicetray teach`"
        ) from None
