#!/bin/sh
# dicetray from a labwc autostart entry (install-pi.sh --autostart): runs `dicetray play` with
# the same restart rules as the systemd user unit (hardware/dicetray.service):
#   exit 0 = "quit" chosen in the table's menu -> stop
#   exit 2 = a user's mistake (bad config or journal file) -> stop; the screen and the log
#            (~/.local/state/dicetray/session.log) say which key or file
#   other  = a crash -> start again after 3 s; after 5 crashes within 2 minutes, stop
# Installed as ~/.local/share/dicetray/dicetray-session; the autostart line names it by $HOME,
# so no user name or home is written anywhere. DICETRAY_BIN / DICETRAY_RESTART_SEC override the
# program and the delay (tests).
bin="${DICETRAY_BIN:-$HOME/.local/share/dicetray/venv/bin/dicetray}"
delay="${DICETRAY_RESTART_SEC:-3}"
window=120
limit=5
crashes=0
while :; do
    started=$(date +%s)
    "$bin" play "$@"
    rc=$?
    case "$rc" in
        0) exit 0 ;;
        2) echo "dicetray: exit 2 (a config or journal problem, see above): not restarting" >&2
           exit 2 ;;
    esac
    if [ $(( $(date +%s) - started )) -ge "$window" ]; then
        crashes=0                   # it ran a good while: an old crash no longer counts
    fi
    crashes=$((crashes + 1))
    if [ "$crashes" -ge "$limit" ]; then
        echo "dicetray: crashed $crashes times in a row (last exit $rc): giving up" >&2
        exit "$rc"
    fi
    echo "dicetray: exit $rc (a crash): starting again in ${delay} s" >&2
    sleep "$delay"
done
