"""The simulated tray: what a camera over a dice tray would see, drawn from the dice-set data.

``render.py`` draws trays, throws and hands (the camera of ``dicetray demo``, screenshots,
test fixtures, training scenes); ``looks.py`` how the dice are coloured, printed and lit.
Part of the main job, so it needs only numpy, OpenCV and ``vision``'s dice-set data: the
workshop (lab/) imports it from here, never the other way round.
"""
