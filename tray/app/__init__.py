"""The table put together: camera + vision + table + screen (and the network, when asked), and
the ``dicetray`` commands that run them. The one package on top: nothing in tray/rules,
tray/table, tray/screen, tray/net, vision or hardware imports it.

=========================  =================================================================
module                     holds
=========================  =================================================================
tray/app/session.py        :class:`Session`: one game's loop turn (frame, vision, table, draw)
tray/app/play.py           ``dicetray play``: start screen -> games -> rematch -> quit
tray/app/demo.py           ``dicetray demo``: whole games on the simulated tray
tray/app/players.py        the demo's simulated players (they press buttons, as people do)
tray/app/config.py         the table's config file (players, pins, camera, screen, games, ...)
tray/app/calibrate.py      ``dicetray calibrate``: tray, exposure, white balance, dice check
tray/app/capture_cmd.py    ``dicetray calibrate --teach``: the guided capture, then teaching
tray/app/stats.py          ``dicetray stats``: dice fairness and the table's history
tray/app/screenshots.py    ``dicetray screenshots`` (with beyond_shots.py, capture_shots.py)
=========================  =================================================================
"""
