"""Fine-tuning the shipped networks on the owner's photos, with torch (``dicetray teach --deep``).

The crops the classifier is fine-tuned on (every labelled die cut many times over: turned,
shifted, resized, lighter and darker, blurred; and "not a die" crops: the tray, corners of
dice, the shipped detector's false finds), the views the detector is fine-tuned on (each
photo whole and in the half-size tiles the photo search reads, with targets from the labelled
boxes), the fine-tuning itself (the weights pulled towards the shipped ones, L2-SP) and the
fine-tuned networks written as ONNX models with their cards. ``lab.teach`` runs it. Needs the
train extra (torch, onnx); the table never does.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from vision.classcard import model_paths
from vision.classify import FaceClassifier
from vision.crops import to_input
from vision.detect import (
    NET_H,
    NET_W,
    Detector,
    preprocess,
)
from vision.onnx import file_sha256
from vision.teach import TeachError
from vision.teachcrops import cut_at, no_dice_crops, spoiled
from vision.teachdet import cell_targets

COPIES = 48  # augmented crops per labelled die (Rollers with digits, fresh dice
# read taught: 16 71%, 32 83% with only the last layers taught;
# with every layer taught 32 94%, 48 97%)
CROP_BUDGET = 4800  # ... at most this many in all (48 a die up to 100 dice): a table
# of 24 dice in each of 14 photos (336 dice) takes 14 crops a die,
# and teaching time no longer grows with the dice
MIN_COPIES = 12
NEG_SHARE = 0.5  # "not a die" crops per die crop
CLF_EPOCHS = 20
CLF_FROZEN = 0  # first convolutions of the classifier kept as shipped (with 2, Rollers with
# digits read 83% of fresh dice taught; with 0, 94%)
DET_EPOCHS = 5
MAX_LR = 3e-3  # one-cycle peak learning rate of the fine-tuning
PULL = 1e-3  # L2 pull of the fine-tuned weights to the shipped ones


# --------------------------------------------------------------------------------------------
# crops and views


def copies_for(n_dice: int) -> int:
    """Augmented crops cut of each of ``n_dice`` labelled dice: ``COPIES``, fewer beyond
    ``CROP_BUDGET`` crops in all (never under ``MIN_COPIES``).

    >>> copies_for(80), copies_for(100), copies_for(336), copies_for(2000)
    (48, 48, 14, 12)
    """
    return min(COPIES, max(MIN_COPIES, CROP_BUDGET // max(n_dice, 1)))


def _die_crops(img, lab, clf: FaceClassifier, rng, copies: int):
    """``copies`` crops of one labelled die: the first straight as the table cuts it, the rest
    turned, shifted, resized and spoiled."""
    side = max(lab.w, lab.h) * clf.margin
    cx, cy = lab.x + lab.w / 2, lab.y + lab.h / 2
    out = [clf.crop(img, (lab.x, lab.y, lab.w, lab.h))]
    for _ in range(copies - 1):
        s = side * rng.uniform(0.88, 1.14)
        out.append(
            spoiled(
                cut_at(
                    img,
                    cx + rng.uniform(-0.08, 0.08) * side,
                    cy + rng.uniform(-0.08, 0.08) * side,
                    s,
                    clf.input_size,
                    rng.uniform(0, 360),
                ),
                rng,
            )
        )
    return out


def _passes(img: np.ndarray):
    """The views the photo search reads: the whole photo, and half-size tiles (as
    ``Detector.detect_fine``), each as (x0, y0, view)."""
    h, w = img.shape[:2]
    yield 0, 0, img
    tw, th = w // 2, h // 2
    for y0, x0 in ((0, 0), (0, w - tw), (h - th, 0), (h - th, w - tw), (h // 4, w // 4)):
        yield x0, y0, img[y0 : y0 + th, x0 : x0 + tw]


def f1_count(labels, boxes) -> float:
    """True finds minus half the misses and false finds: higher is better."""
    used, hit = set(), 0
    for lab in labels:
        cx, cy = lab.x + lab.w / 2, lab.y + lab.h / 2
        for k, (x, y, w, h) in enumerate(boxes):
            if k not in used and x <= cx <= x + w and y <= cy <= y + h:
                used.add(k)
                hit += 1
                break
    return hit - 0.5 * ((len(labels) - hit) + (len(boxes) - hit))


def crop_set(photos, images, clf: FaceClassifier, finds, rng, copies: int):
    """(crops, face index, die index) of the photos' dice (``copies`` each) and "not a die"
    crops; die index -1 for those. ``finds``: the shipped detector's boxes in each photo
    (its false finds are "not a die" crops)."""
    crops, face_y, die_y = [], [], []
    none = len(clf.faces)
    for photo, img, found in zip(photos, images, finds, strict=True):
        for lab in photo.labels:
            got = _die_crops(img, lab, clf, rng, copies)
            crops += got
            face_y += [clf.faces.index(lab.face)] * len(got)
            die_y += [clf.dice.index(lab.die)] * len(got)
        neg = no_dice_crops(
            img, photo.labels, clf, found, rng, int(NEG_SHARE * copies * len(photo.labels))
        )
        crops += neg
        face_y += [none] * len(neg)
        die_y += [-1] * len(neg)
    return np.stack(crops), np.array(face_y), np.array(die_y)


def detector_views(photos, images):
    """Detector training views: (net input 3 x 240 x 320, heat, size, size mask, ignore)."""
    out = []
    for photo, img in zip(photos, images, strict=True):
        for x0, y0, view in _passes(img):
            vh, vw = view.shape[:2]
            if vw < 32 or vh < 32:
                continue
            out.append((preprocess(view)[0], *cell_targets(photo.labels, x0, y0, vw, vh)))
    return out


# --------------------------------------------------------------------------------------------
# fine-tuning (torch: the train extra)


def torch_parts():
    try:
        import onnx
        import torch

        from lab import onnxtorch
    except ImportError:
        raise TeachError(
            "teaching needs the train extra (torch, onnx): .venv/bin/pip install -e '.[train]'"
        ) from None
    return torch, onnx, onnxtorch


def _module(onnx_path: Path, frozen: int):
    """The ONNX network as a torch module, its first ``frozen`` convolutions kept as they are."""
    _, onnx, onnxtorch = torch_parts()
    try:
        net = onnxtorch.OnnxModule(onnx.load(str(onnx_path)))
    except onnxtorch.UnsupportedModel as exc:
        raise TeachError(f"{onnx_path}: {exc}") from None
    onnxtorch.freeze_first_convs(net, frozen)
    return net


def _anchor(torch, net):
    """The starting weights, to keep the fine-tuned net near what it knew (L2-SP)."""
    return [(p, p.detach().clone()) for p in net.parameters() if p.requires_grad]


def _pull(torch, net, start, weight: float):
    return weight * sum(((p - p0) ** 2).sum() for p, p0 in start)


def _fit(torch, net, n: int, batch: int, epochs: int, seed: int, loss_of, tick=None):
    """Fine-tune ``net`` (its unfrozen weights, pulled towards where they started) over ``n``
    samples in shuffled batches: ``loss_of(indices, generator)`` is a batch's loss."""
    start = _anchor(torch, net)
    opt = torch.optim.Adam([p for p, _ in start], lr=MAX_LR)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=MAX_LR, total_steps=epochs * math.ceil(n / batch)
    )
    g = torch.Generator().manual_seed(seed)
    net.train()
    for _ in range(epochs):
        order = torch.randperm(n, generator=g)
        for b in range(0, n, batch):
            loss = loss_of(order[b : b + batch], g) + _pull(torch, net, start, PULL)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        if tick:
            tick()
    net.eval()
    return net


def finetune_classifier(
    onnx_path: Path,
    crops,
    face_y,
    die_y,
    n_dice: int,
    seed: int,
    epochs: int = CLF_EPOCHS,
    tick=None,
):
    """The classifier network fine-tuned on uint8 crops; returns the torch module."""
    torch, _, _ = torch_parts()
    torch.manual_seed(seed)
    net = _module(onnx_path, frozen=CLF_FROZEN)
    x = torch.from_numpy(to_input(crops))
    fy = torch.from_numpy(face_y).long()
    dy = torch.from_numpy(die_y).long()
    counts = np.bincount(face_y, minlength=int(face_y.max()) + 1).astype(np.float32)
    cw = torch.from_numpy(len(face_y) / np.maximum(counts, 1) / len(counts))
    nll = torch.nn.functional.nll_loss

    def loss_of(idx, g):
        xb = torch.rot90(x[idx], int(torch.randint(0, 4, (1,), generator=g)), (2, 3))
        log_die, log_face, _ = net(xb)
        loss = nll(log_face, fy[idx], weight=cw)
        dice = dy[idx] >= 0
        if n_dice > 1 and bool(dice.any()):
            loss = loss + nll(log_die[dice], dy[idx][dice])
        return loss

    # trained on log-probabilities from the logits (with log(p + 1e-7) a network
    # sure that the owner's star is a 4 (p(6) under 1e-7) never learned it: 79% of the
    # cross-validated dice right against 100% from a less sure network)
    net.log_probs = True
    try:
        return _fit(torch, net, len(x), 64, epochs, seed, loss_of, tick)
    finally:
        net.log_probs = False


def finetune_detector(onnx_path: Path, views, seed: int, epochs: int = DET_EPOCHS, tick=None):
    """The detector network fine-tuned on photo views; returns the torch module."""
    torch, _, _ = torch_parts()
    torch.manual_seed(seed)
    net = _module(onnx_path, frozen=3)
    x = torch.from_numpy(np.stack([v[0] for v in views]))
    heat = torch.from_numpy(np.stack([v[1] for v in views]))[:, None]
    size = torch.from_numpy(np.stack([v[2] for v in views]))
    smask = torch.from_numpy(np.stack([v[3] for v in views]).astype(np.float32))[:, None]
    keep = 1.0 - torch.from_numpy(np.stack([v[4] for v in views]).astype(np.float32))[:, None]
    with torch.no_grad():
        hand0 = torch.cat([net(x[i : i + 16])[2] for i in range(0, len(x), 16)])

    def loss_of(idx, g):
        ph, ps, pm, _ = net(x[idx])
        p = ph.clamp(1e-4, 1 - 1e-4)
        t, k = heat[idx], keep[idx]
        pos = t.eq(1).float()
        focal = -(
            k
            * (
                pos * (1 - p) ** 2 * torch.log(p)
                + (1 - pos) * (1 - t) ** 4 * p**2 * torch.log(1 - p)
            )
        ).sum() / pos.sum().clamp(min=1)
        m = smask[idx]
        sl = (m * (ps - size[idx]).abs()).sum() / m.sum().clamp(min=1)
        hl = torch.nn.functional.binary_cross_entropy(pm.clamp(1e-4, 1 - 1e-4), hand0[idx])
        return focal + sl + hl

    return _fit(torch, net, len(x), 8, epochs, seed, loss_of, tick)


def export_onnx(net, path: Path, example, batch_axis: bool) -> None:
    import warnings

    _, _, onnxtorch = torch_parts()
    with warnings.catch_warnings():  # tracing notes about constant slices: expected
        warnings.simplefilter("ignore")
        onnxtorch.export(net, path, example, batch_axis)


def write_models(
    out: Path,
    clf_net,
    det_net,
    clf: FaceClassifier,
    det: Detector | None,
    thresholds: dict,
    det_threshold: float | None,
    taught_info: dict,
) -> list[str]:
    """The fine-tuned networks as ``classifier-<set>.onnx``/``.json`` (and ``detector``)."""
    torch, _, _ = torch_parts()
    out.mkdir(parents=True, exist_ok=True)
    names = []
    if clf_net is not None:
        s = clf.input_size
        onnx_path, meta_path = model_paths(clf.dice_set.id, out)
        export_onnx(clf_net, onnx_path, torch.zeros(2, 3, s, s), True)
        meta = {
            k: v for k, v in clf.meta.items() if k not in ("figures", "turned", "die_thresholds")
        }
        meta.update(thresholds, taught=taught_info)
        # the shipped network that backs it at the table (vision.classify: another one, after
        # an update, does not)
        meta["shipped_sha256"] = file_sha256(clf.model_path)
        meta_path.write_text(json.dumps(meta, indent=1), encoding="utf-8")
        names += [onnx_path.name, meta_path.name]
    if det_net is not None and det is not None:
        export_onnx(det_net, out / "detector.onnx", torch.zeros(1, 3, NET_H, NET_W), False)
        dmeta = {k: v for k, v in det.meta.items() if k != "figures"}
        dmeta.update(threshold=det_threshold, taught=taught_info)
        (out / "detector.json").write_text(json.dumps(dmeta, indent=1), encoding="utf-8")
        names += ["detector.onnx", "detector.json"]
    return names
