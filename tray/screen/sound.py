"""Short table sounds (roll taken, bust, reveal, win), synthesised with numpy at start-up.

No sound files: each cue is a few tones with a soft attack and decay, made into a
``pygame.mixer.Sound``. Without an audio device (or with ``SDL_AUDIODRIVER=dummy``, or sound
switched off in the config: ``[screen] sound = false``) :class:`Sounds` stays silent and never
raises.

>>> import os; os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
'dummy'
>>> sounds = Sounds(enabled=False)
>>> sounds.play("bust")
False
>>> samples("win").shape[0] > samples("roll").shape[0]
True
"""

from __future__ import annotations

import numpy as np

RATE = 22050

#: cue -> notes (frequency Hz, seconds); 0 Hz is a rest
NOTES = {
    "roll": [(880.0, 0.05), (1320.0, 0.06)],
    "reveal": [(523.3, 0.09), (659.3, 0.09), (784.0, 0.16)],
    "bust": [(392.0, 0.12), (311.1, 0.12), (233.1, 0.30)],
    "win": [(523.3, 0.12), (659.3, 0.12), (784.0, 0.12), (0.0, 0.04), (1046.5, 0.45)],
}
CUES = tuple(NOTES)


def samples(cue: str, rate: int = RATE) -> np.ndarray:
    """The cue as mono int16 samples (ValueError names the cues for an unknown one)."""
    if cue not in NOTES:
        raise ValueError(f"unknown sound {cue!r}: the sounds are {', '.join(CUES)}")
    parts = []
    for freq, secs in NOTES[cue]:
        t = np.arange(int(rate * secs)) / rate
        if freq <= 0:
            parts.append(np.zeros_like(t))
            continue
        tone = np.sin(2 * np.pi * freq * t) + 0.3 * np.sin(4 * np.pi * freq * t)
        env = np.minimum(1.0, t / 0.008) * np.exp(-t * (3.0 / secs))
        parts.append(tone * env)
    wave = np.concatenate(parts)
    return (wave / max(1e-9, np.abs(wave).max()) * 0.5 * 32767).astype(np.int16)


class Sounds:
    """The table's sounds. ``enabled=False`` (the config's mute) plays nothing.

    >>> Sounds(enabled=False).play("win")
    False
    """

    def __init__(self, enabled: bool = True):
        self.sounds: dict[str, object] = {}
        self.enabled = enabled
        self.error: str | None = None
        if not enabled:
            return
        try:
            import pygame

            if not pygame.mixer.get_init():
                pygame.mixer.init(frequency=RATE, size=-16, channels=1, buffer=512)
            freq, _size, channels = pygame.mixer.get_init()
            for cue in CUES:
                mono = samples(cue, freq)
                data = np.repeat(mono[:, None], channels, axis=1) if channels > 1 else mono
                self.sounds[cue] = pygame.sndarray.make_sound(np.ascontiguousarray(data))
        except Exception as exc:  # noqa: BLE001 - no audio device: the table plays on, silent
            self.sounds = {}
            self.error = str(exc) or type(exc).__name__

    def play(self, cue: str) -> bool:
        """Play ``cue``; True when a sound was started."""
        snd = self.sounds.get(cue)
        if snd is None:
            return False
        try:
            snd.play()
        except Exception:  # noqa: BLE001 - a device that went away: stay silent
            return False
        return True
