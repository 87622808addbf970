#!/usr/bin/env bash
# Install dicetray on Raspberry Pi OS Bookworm or Trixie (64-bit), for the user who runs it.
#
#   hardware/install-pi.sh [--dry-run] [--session auto|desktop|console] [--autostart]
#                          [--no-camera] [--no-start]
#   make pi-install                      the same (ARGS="--dry-run" etc. are passed on)
#
# Steps, each printed before it runs (--dry-run prints them all and runs none, writes nothing):
#   apt packages (picamera2, numpy, lgpio, gpiozero, the KMS/EGL libraries pygame-ce draws
#   with), the user's groups, a venv that sees apt's packages (~/.local/share/dicetray/venv)
#   with apt's numpy/gpiozero/lgpio pinned, dicetray installed into it, a config file, and
#   the start at boot: a systemd USER service (default) or a labwc autostart entry
#   (--autostart). Running it again is safe: every step checks what is already there.
#
# No file it writes names a user, a home, a UID or a Wayland socket: the unit uses %h and gets
# the display from the session, the autostart lines use $HOME.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA="$HOME/.local/share/dicetray"
VENV="$DATA/venv"
CONSTRAINTS="$DATA/constraints.txt"
UNIT_DIR="$HOME/.config/systemd/user"
CONFIG="$HOME/.config/dicetray/config.toml"
AUTOSTART="$HOME/.config/labwc/autostart"
OS_RELEASE="${DICETRAY_OS_RELEASE:-/etc/os-release}"
# shellcheck source=hardware/autostart-block.sh
. "$REPO/hardware/autostart-block.sh"       # write_block / drop_block: our lines in a file

dry=0 session=auto mode=service camera=1 start=1
usage() { sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) dry=1 ;;
        --session) session="${2:-}"; shift ;;
        --session=*) session="${1#*=}" ;;
        --autostart) mode=autostart ;;
        --no-camera) camera=0 ;;
        --no-start) start=0 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install-pi.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
case "$session" in auto|desktop|console) ;; *)
    echo "install-pi.sh: --session is auto, desktop or console, not '$session'" >&2; exit 2 ;;
esac

n=0
step() { n=$((n + 1)); echo; echo "==> step $n: $*"; }
note() { echo "    $*"; }
# run CMD...: print it; run it unless --dry-run.
run() { local line; line=$(printf '%q ' "$@"); echo "+ ${line% }"; [ "$dry" = 1 ] || "$@"; }
fail() { echo "install-pi.sh: $*" >&2; exit 1; }

# ---------------------------------------------------------------------------------- the system
step "check the system (Debian / Raspberry Pi OS, 64-bit, not root)"
os_id="" codename="" like=""
if [ -r "$OS_RELEASE" ]; then
    os_id=$(. "$OS_RELEASE"; echo "${ID:-}")
    like=$(. "$OS_RELEASE"; echo "${ID_LIKE:-}")
    codename=$(. "$OS_RELEASE"; echo "${VERSION_CODENAME:-}")
fi
note "system: ${os_id:-unknown} ${codename:-?} ($(uname -m))"
problem=""
case " $os_id $like " in
    *" debian "*|*" raspbian "*) ;;
    *) problem="this is not Debian or Raspberry Pi OS (${OS_RELEASE}: ID=${os_id:-none}); the steps below need apt" ;;
esac
if [ -z "$problem" ] && [ "$(id -u)" = 0 ]; then
    problem="run it as the user who will play (not root, not with sudo): it asks for sudo itself"
fi
if [ -n "$problem" ]; then
    [ "$dry" = 1 ] || fail "refusing: $problem"
    note "(a real run would refuse: $problem)"
fi
case "$codename" in
    bookworm|trixie) ;;
    *) note "written for bookworm and trixie; ${codename:-this release} is untried" ;;
esac
[ "$(uname -m)" = aarch64 ] || note "not 64-bit ARM: fine for a try, but the table is built for a 64-bit Pi"

# ---------------------------------------------------------------------------------------- apt
# pygame-ce's wheel carries its own SDL (with ALSA for the table's sounds), which opens the GPU
# libraries of the system at run time (dlopen): libgbm.so.1 + libdrm.so.2 for KMS/DRM on the
# console, libEGL.so.1 + libGLESv2.so.2 (glvnd) with Mesa's EGL and DRI drivers (v3d/vc4).
packages=(python3-venv python3-numpy python3-lgpio python3-gpiozero
          libgbm1 libdrm2 libegl1 libegl-mesa0 libgles2 libgl1-mesa-dri)
[ "$camera" = 1 ] && packages=(python3-picamera2 "${packages[@]}")
step "apt packages: ${packages[*]}"
run sudo apt-get update
# Raspberry Pi's apt archive has picamera2 and lgpio; plain Debian has neither (and an old
# gpiozero). Without the camera (--no-camera, a USB camera then) that is still a table.
known=()
for p in "${packages[@]}"; do
    if [ "$dry" = 1 ] || apt-cache show "$p" >/dev/null 2>&1; then
        known+=("$p")
    elif [ "$p" = python3-picamera2 ]; then
        fail "apt knows no python3-picamera2: use Raspberry Pi OS (its apt archive has it), or run with --no-camera for a USB camera only"
    else
        note "apt knows no $p here (not Raspberry Pi OS): left out; GPIO buttons need it"
    fi
done
packages=("${known[@]}")
run sudo apt-get install -y --no-install-recommends "${packages[@]}"

step "groups: camera (video), screen (render), keys and touch (input), buttons (gpio)"
wanted=()
for g in video render input gpio; do
    if getent group "$g" >/dev/null; then
        id -nG | tr ' ' '\n' | grep -qx "$g" || wanted+=("$g")
    fi
done
if [ ${#wanted[@]} -eq 0 ]; then
    note "already in every group the system has"
else
    groups_csv=$(IFS=,; echo "${wanted[*]}")
    run sudo usermod -aG "$groups_csv" "$(id -un)"
    note "log out and in again (or reboot) for the new groups to count"
fi

# ----------------------------------------------------------------------------------- the venv
step "virtual environment $VENV (sees apt's picamera2, numpy, lgpio, gpiozero)"
if [ -f "$VENV/pyvenv.cfg" ] && grep -q '^include-system-site-packages = true' "$VENV/pyvenv.cfg"; then
    note "already there"
elif [ -f "$VENV/pyvenv.cfg" ]; then
    note "there, but without system site packages: made again"
    run /usr/bin/python3 -m venv --clear --system-site-packages "$VENV"
else
    run mkdir -p "$DATA"
    run /usr/bin/python3 -m venv --system-site-packages "$VENV"
fi

step "pin apt's numpy, gpiozero and lgpio ($CONSTRAINTS)"
note "picamera2 is built against apt's numpy (1.24 on Bookworm, 2.2 on Trixie): pip must"
note "not bring another one; PyPI's lgpio 0.0.0.2 is an empty stub and needs swig to build"
note "newer ones, and apt's gpiozero carries the Pi 5 gpiochip fix (gpiozero #1115, #1131)"
# (gpiozero and lgpio only when apt has working ones: 2.0 and 0.2.2 or later)
pin_script='import importlib.metadata as md
least = {"numpy": (1, 24), "gpiozero": (2, 0), "lgpio": (0, 2, 2)}
for name, low in least.items():
    try:
        v = md.version(name)
    except md.PackageNotFoundError:
        continue
    if tuple(int(x) for x in v.split(".")[:len(low)] if x.isdigit()) >= low:
        print(f"{name}=={v}")'
echo "+ /usr/bin/python3 -c <print apt's versions> > $CONSTRAINTS"
if [ "$dry" = 0 ]; then
    /usr/bin/python3 -c "$pin_script" > "$CONSTRAINTS.new"
    mv "$CONSTRAINTS.new" "$CONSTRAINTS"
    sed 's/^/    /' "$CONSTRAINTS"
fi

step "install dicetray into the venv (pip install -e '.[pi]', apt's versions kept)"
# The pi extra is lgpio >= 0.2.2, which PyPI has as source only (swig, liblgpio): without
# apt's python3-lgpio (plain Debian) dicetray goes in without it, and the buttons wait for it.
extra="[pi]"
if [ "$dry" = 0 ] && ! grep -q '^lgpio==' "$CONSTRAINTS"; then
    extra=""
    note "apt gave no lgpio (not Raspberry Pi OS): installed without the pi extra; GPIO"
    note "buttons need python3-lgpio from Raspberry Pi OS's apt (keyboard and touch work)"
fi
run "$VENV/bin/pip" install --quiet -c "$CONSTRAINTS" -e "$REPO$extra"
run mkdir -p "$HOME/.local/bin"
run ln -sfn "$VENV/bin/dicetray" "$HOME/.local/bin/dicetray"

# --------------------------------------------------------------------------------- the config
step "config file $CONFIG"
if [ -f "$CONFIG" ]; then
    note "already there: kept as it is"
else
    run mkdir -p "$(dirname "$CONFIG")"
    run cp "$REPO/config.example.toml" "$CONFIG"
    run sed -i 's/^fullscreen = false/fullscreen = true/' "$CONFIG"
    note "edit the names and pins in it; every key is checked when dicetray starts"
fi

# ---------------------------------------------------------------------------- start at boot
if [ "$session" = auto ]; then
    if command -v labwc >/dev/null || [ "$(systemctl get-default 2>/dev/null)" = graphical.target ]; then
        session=desktop
    else
        session=console
    fi
fi
if [ "$mode" = autostart ] && [ "$session" = console ]; then
    fail "--autostart needs the desktop (labwc); on the console use the user service (the default)"
fi

# systemd steps: skipped with the command to run later when systemd is not running here (a
# chroot or container) or this shell has no user manager (no login session, e.g. su).
booted() { [ "$dry" = 1 ] || [ -d /run/systemd/system ]; }
user_systemctl() {
    if [ "$dry" = 0 ] && ! { booted && systemctl --user show-environment >/dev/null 2>&1; }; then
        note "no systemd user manager reachable here (no login session): skipped"
        note "  systemctl --user $*   (run it after logging in)"
        return 0
    fi
    run systemctl --user "$@"
}

if [ "$mode" = service ]; then
    step "systemd user service dicetray.service ($session session)"
    run mkdir -p "$UNIT_DIR"
    run install -m 644 "$REPO/hardware/dicetray.service" "$UNIT_DIR/dicetray.service"
    if [ "$session" = console ]; then
        run mkdir -p "$UNIT_DIR/dicetray.service.d"
        run install -m 644 "$REPO/hardware/dicetray-console.conf" "$UNIT_DIR/dicetray.service.d/console.conf"
        drop_block "$AUTOSTART"
        user_systemctl daemon-reload
        user_systemctl add-wants default.target dicetray.service
        note "the user manager must run from boot, before anyone logs in:"
        if booted; then
            run sudo loginctl enable-linger "$(id -un)"
        else
            note "systemd is not running here: skipped; later run  sudo loginctl enable-linger \$USER"
        fi
    else
        if [ -f "$UNIT_DIR/dicetray.service.d/console.conf" ]; then
            run rm -f "$UNIT_DIR/dicetray.service.d/console.conf"
        fi
        if [ -L "$UNIT_DIR/default.target.wants/dicetray.service" ]; then
            run rm -f "$UNIT_DIR/default.target.wants/dicetray.service"     # was: console
        fi
        user_systemctl daemon-reload
        user_systemctl enable dicetray.service
        note "Raspberry Pi OS's labwc session does not reach graphical-session.target, so the"
        note "session's autostart hands its display to the user manager and starts the unit:"
        write_block "$AUTOSTART" "systemctl --user import-environment WAYLAND_DISPLAY DISPLAY XDG_CURRENT_DESKTOP XDG_SESSION_TYPE
systemctl --user --no-block start dicetray.service"
    fi
    if [ "$start" = 1 ]; then
        step "start it now"
        if [ "$session" = desktop ] && [ -z "${WAYLAND_DISPLAY:-}${DISPLAY:-}" ]; then
            note "not inside the desktop session: it starts at the next desktop login"
        else
            [ "$session" = desktop ] && user_systemctl import-environment WAYLAND_DISPLAY DISPLAY XDG_CURRENT_DESKTOP XDG_SESSION_TYPE
            user_systemctl restart dicetray.service
        fi
        note "log: journalctl --user -u dicetray -f    stop: systemctl --user stop dicetray"
        [ ${#wanted[@]} -eq 0 ] || note "new groups count from the next boot: reboot if it cannot open the camera or screen"
    fi
else
    step "labwc autostart entry (restarts after a crash, not after 0 = quit or 2 = config)"
    if [ -f "$UNIT_DIR/dicetray.service" ]; then
        user_systemctl disable --now dicetray.service
        run rm -f "$UNIT_DIR/dicetray.service" "$UNIT_DIR/default.target.wants/dicetray.service"
        run rm -rf "$UNIT_DIR/dicetray.service.d"
    fi
    run install -m 755 "$REPO/hardware/dicetray-session.sh" "$DATA/dicetray-session"
    run mkdir -p "$HOME/.local/state/dicetray"
    write_block "$AUTOSTART" "\"\$HOME/.local/share/dicetray/dicetray-session\" >> \"\$HOME/.local/state/dicetray/session.log\" 2>&1 &"
    note "starts at the next desktop login; log: ~/.local/state/dicetray/session.log"
fi

# -------------------------------------------------------------------------------- the check
step "check everything a table needs (python -m hardware.pi)"
if [ "$dry" = 1 ]; then
    echo "+ $VENV/bin/python -m hardware.pi"
else
    rc=0
    "$VENV/bin/python" -m hardware.pi || rc=$?
    case $rc in
        0) ;;
        1) note "fix the [FIX] lines above, then run: $VENV/bin/python -m hardware.pi" ;;
        *) note "the check itself failed (exit $rc): run $VENV/bin/python -X faulthandler -m hardware.pi" ;;
    esac
fi
echo
[ "$dry" = 1 ] && echo "dry run: nothing was run or written." || echo "done."
