"""The simulated tray: what a camera over a dice tray would see, drawn from the dice-set data.

``render.py`` draws trays, throws and hands (the camera of ``dicetray demo``, screenshots,
test fixtures, training scenes) in a look of the tray that ``styles.py`` draws (floor, light,
camera); ``looks.py`` how the dice are coloured, printed and lit; ``tray.py`` is the simulated
tray as a frame source (``hardware.frames``).
Part of the main job, so it needs only numpy, OpenCV and ``vision``'s dice-set data: the
workshop (lab/) imports it from here, never the other way round.
"""
