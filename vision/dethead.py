"""A taught detector head: the owner's dice found on the owner's tray, fitted in numpy.

The shipped detector ends in a 1x1 convolution over a 24-channel feature map (its ONNX
``features`` output): one output is the heat of die centres (a logistic), two the box size
(log-scale). A taught detector head replaces those three with ones fitted on the owner's
labelled photos: the heat by a logistic regression of each cell's features on whether a die's
centre lies there, the size by a ridge regression on the cells at the centres; both pulled
towards the shipped head, which is read back exactly from the shipped outputs (they are
linear in the features before the logistic). The hand output stays the shipped one.

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> f = rng.normal(size=(400, 3)).astype(np.float32)
    >>> heat = 1 / (1 + np.exp(-(f @ [1.0, -2.0, 0.5] + 0.3)))
    >>> size = f @ np.array([[0.1, 0.2], [0.0, 0.1], [0.3, 0.0]]) + 1.0
    >>> head = DetectorHead.recover(f, heat, size)
    >>> np.round(head.heat_w, 3).tolist(), round(float(head.heat_b), 3)
    ([1.0, -2.0, 0.5], 0.3)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.head import lbfgs

ITERATIONS = 60


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))


@dataclass
class DetectorHead:
    """Heat and size of each cell from its features: ``heat = sigmoid(f @ heat_w + heat_b)``,
    ``size = f @ size_w + size_b`` (log-scale width and height, as the shipped head)."""

    heat_w: np.ndarray
    heat_b: float
    size_w: np.ndarray
    size_b: np.ndarray

    def maps(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(heat H x W, size 2 x H x W) from a C x H x W feature map."""
        c, h, w = features.shape
        f = features.reshape(c, h * w).T
        heat = _sigmoid(f @ self.heat_w + self.heat_b).reshape(h, w).astype(np.float32)
        size = (f @ self.size_w + self.size_b).T.reshape(2, h, w).astype(np.float32)
        return heat, size

    @classmethod
    def recover(cls, features: np.ndarray, heat: np.ndarray, size: np.ndarray) -> DetectorHead:
        """The head that gave ``heat`` and ``size`` (cells x 1, cells x 2) from ``features``
        (cells x C): least squares on the heat's logit and on the sizes."""
        f = np.concatenate([features, np.ones((len(features), 1), np.float32)], axis=1)
        h = np.clip(np.asarray(heat, np.float64).reshape(-1), 1e-6, 1 - 1e-6)
        sol_h = np.linalg.lstsq(f, np.log(h / (1 - h)), rcond=None)[0]
        sol_s = np.linalg.lstsq(f, np.asarray(size, np.float64).reshape(len(f), 2), rcond=None)[0]
        return cls(
            sol_h[:-1].astype(np.float32),
            float(sol_h[-1]),
            sol_s[:-1].astype(np.float32),
            sol_s[-1].astype(np.float32),
        )

    @classmethod
    def fit(
        cls,
        features: np.ndarray,
        centre: np.ndarray,
        weight: np.ndarray,
        size: np.ndarray,
        size_mask: np.ndarray,
        prior: DetectorHead,
        l2: float,
    ) -> DetectorHead:
        """Fit on cells (``features``: cells x C): ``centre`` 1 where a die's centre lies, 0
        elsewhere, each cell's ``weight`` in the logistic loss; ``size`` (cells x 2) the log
        box size where ``size_mask``; both pulled towards ``prior`` by ``l2``."""
        f = np.asarray(features, np.float32)
        y = np.asarray(centre, np.float32)
        wt = np.asarray(weight, np.float32)
        wt = wt / wt.sum()
        c = f.shape[1]
        w0 = np.concatenate([prior.heat_w, [prior.heat_b]]).astype(np.float32)

        def loss_grad(theta: np.ndarray) -> tuple[float, np.ndarray]:
            z = f @ theta[:c] + theta[c]
            p = _sigmoid(z)
            eps = 1e-7
            loss = -float((wt * (y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))).sum())
            loss += 0.5 * l2 * float(((theta[:c] - w0[:c]) ** 2).sum())
            g = wt * (p - y)
            grad = np.concatenate([f.T @ g + l2 * (theta[:c] - w0[:c]), [g.sum()]])
            return loss, grad.astype(np.float32)

        theta = lbfgs(loss_grad, w0, ITERATIONS)
        # sizes: ridge towards the prior, closed form
        fs = f[size_mask]
        size_w, size_b = prior.size_w, prior.size_b
        if len(fs) >= c:
            x = np.concatenate([fs, np.ones((len(fs), 1), np.float32)], axis=1).astype(np.float64)
            w0s = np.concatenate([prior.size_w, prior.size_b[None]]).astype(np.float64)
            lam = l2 * len(fs) * np.eye(c + 1)
            lam[c, c] = 0.0
            sol = np.linalg.solve(x.T @ x + lam, x.T @ size[size_mask] + lam @ w0s)
            size_w, size_b = sol[:-1].astype(np.float32), sol[-1].astype(np.float32)
        return cls(theta[:c].astype(np.float32), float(theta[c]), size_w, size_b)

    def save(self, path: Path | str) -> None:
        with open(path, "wb") as fh:
            np.savez(
                fh,
                heat_w=self.heat_w,
                heat_b=np.float32(self.heat_b),
                size_w=self.size_w,
                size_b=self.size_b,
            )

    @classmethod
    def load(cls, path: Path | str) -> DetectorHead:
        """A saved head; ValueError when the file is no detector head."""
        try:
            with np.load(path, allow_pickle=False) as z:
                return cls(z["heat_w"], float(z["heat_b"]), z["size_w"], z["size_b"])
        except (OSError, KeyError, ValueError, EOFError) as exc:
            raise ValueError(
                f"{path}: not a taught detector head ({exc.__class__.__name__})"
            ) from None
