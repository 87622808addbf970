#!/usr/bin/env bash
# Prove the Raspberry Pi install on 64-bit ARM without a Pi: a Debian arm64 root run under
# qemu-user emulation, this repository cloned into it, and there, as a user who is not root:
#
#   sudo hardware/pi-emulated-check.sh [--suite bookworm|trixie] [--root DIR] [--mirror URL]
#                                      [--fresh] [--keep-going]
#
#   1. make pi-install ARGS=--dry-run                    the steps, printed, nothing run
#   2. hardware/install-pi.sh --no-camera --no-start     for real: apt, groups, venv with apt's
#                                                        numpy, pip install -e '.[pi]', config,
#                                                        unit files, python -m hardware.pi
#   3. pip install . in a new venv (not editable)        the wheel alone carries what the table
#      then dicetray demo, run outside the clone         needs (code, dice sets, models)
#   4. make run                                          the README's main job, unchanged
#
# Needs root (debootstrap, chroot, binfmt_misc), Debian's apt on the host (qemu-user-static,
# debootstrap, binfmt-support are installed when missing), the Debian mirror the host's apt
# uses, PyPI, and time: everything in the root runs emulated, some ten times slower.
# It clones the committed HEAD of this repository (not uncommitted changes). The Debian root
# is made once in DIR/base (default /tmp/dicetray-arm64-SUITE) and copied afresh to DIR/root
# for every run; --fresh makes the base again. Logs: DIR/logs/. Exit 0 when every step passed.
#
# Not proven here: picamera2 and a camera, lgpio and the GPIO chip (Raspberry Pi OS's apt has
# them, plain Debian has not), systemd and the user service, KMS/DRM drawing, the real speed.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
suite=bookworm dir="" mirror="" fresh=0 keep_going=0
usage() { sed -n '2,24p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case "$1" in
        --suite) suite="${2:-}"; shift ;;
        --root) dir="${2:-}"; shift ;;
        --mirror) mirror="${2:-}"; shift ;;
        --fresh) fresh=1 ;;
        --keep-going) keep_going=1 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "pi-emulated-check.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
case "$suite" in bookworm|trixie) ;; *)
    echo "pi-emulated-check.sh: --suite is bookworm or trixie, not '$suite'" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "pi-emulated-check.sh: run it as root (sudo): it needs debootstrap and chroot" >&2; exit 2; }
dir=$(realpath -m "${dir:-/tmp/dicetray-arm64-$suite}")
case "$dir/" in "$REPO"/*)
    echo "pi-emulated-check.sh: --root $dir is inside the repository: give a folder outside it" >&2; exit 2 ;;
esac
BASE="$dir/base" ROOT="$dir/root" LOGS="$dir/logs"
USER_NAME=player
HOME_IN=/home/$USER_NAME
MARK=.dicetray-emulated-check          # written into roots this script made (safe to delete)

t0=$SECONDS
stamp() { local s=$((SECONDS - t0)); printf '%d:%02d' $((s / 60)) $((s % 60)); }
say() { echo "[$(stamp)] $*"; }
die() { echo "pi-emulated-check.sh: $*" >&2; exit 1; }

# ------------------------------------------------------------------------------- the host
if [ -z "$mirror" ]; then
    # the mirror the host's apt uses (deb822 URIs: or one-line deb), else Debian's own
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null \
        | grep -E '^[[:space:]]*(URIs:|deb[[:space:]])' | grep -oE 'https?://[^[:space:]]+/debian/?' \
        | grep -v security | head -n 1 || true)
    mirror=${mirror:-http://deb.debian.org/debian}
fi
say "suite $suite (arm64), mirror $mirror, folder $dir"

need=()
command -v debootstrap >/dev/null || need+=(debootstrap)
[ -e /usr/bin/qemu-aarch64-static ] || need+=(qemu-user-static)
command -v update-binfmts >/dev/null || need+=(binfmt-support)
if [ ${#need[@]} -gt 0 ]; then
    command -v apt-get >/dev/null || die "install ${need[*]} (Debian's packages) first"
    say "host: apt-get install ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

if [ "$(uname -m)" != aarch64 ]; then
    [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc \
        || die "cannot mount binfmt_misc (a container without it cannot run arm64 programs)"
    reg=/proc/sys/fs/binfmt_misc/qemu-aarch64
    if [ ! -e "$reg" ]; then   # known to binfmt-support once qemu-user-static is installed
        update-binfmts --import qemu-aarch64 >/dev/null 2>&1 || true
        update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
    fi
    # F: the emulator is opened now, so the root needs no copy of it; C: a set-uid program
    # (sudo) runs with its owner's rights, as on a real Pi. Debian registers "PF" only.
    if [ -e "$reg" ] && ! grep -q '^flags: .*C' "$reg"; then
        magic=$(sed -n 's/^magic //p' "$reg") mask=$(sed -n 's/^mask //p' "$reg")
        interp=$(sed -n 's/^interpreter //p' "$reg")
        hex() { sed 's/../\\x&/g' <<< "$1"; }
        echo -1 > "$reg"
        echo ":qemu-aarch64:M::$(hex "$magic"):$(hex "$mask"):$interp:POCF" > /proc/sys/fs/binfmt_misc/register
    fi
    grep -q '^enabled' "$reg" 2>/dev/null || die "qemu-aarch64 is not registered with binfmt_misc"
    say "host: qemu-aarch64 registered ($(sed -n 's/^flags: //p' "$reg"))"
fi

# ------------------------------------------------------------------------ the Debian root
mounted=()
unmount_all() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" 2>/dev/null || true
    done
    mounted=()
}
trap unmount_all EXIT
mount_in() {   # mount_in ROOT: proc, sys, dev, dev/pts for apt, pip and python in the root
    mount -t proc proc "$1/proc" && mounted+=("$1/proc")
    mount -t sysfs sys "$1/sys" && mounted+=("$1/sys")
    mount --bind /dev "$1/dev" && mounted+=("$1/dev")
    mount --bind /dev/pts "$1/dev/pts" && mounted+=("$1/dev/pts")
    [ "$(uname -m)" = aarch64 ] && return 0
    # qemu-user (before 8.2) shows the host's own /proc/cpuinfo, and onnxruntime's CPU
    # detection crashes on an x86 one at import (SIGSEGV): show a Pi 4's (Cortex-A72, one
    # entry per host core), the CPU that QEMU_CPU below emulates
    local i
    : > "$dir/cpuinfo"
    for ((i = 0; i < $(nproc); i++)); do
        printf 'processor\t: %d\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd08\nCPU revision\t: 3\n\n' "$i" >> "$dir/cpuinfo"
    done
    printf 'Model\t\t: Raspberry Pi 4 Model B (emulated)\n' >> "$dir/cpuinfo"
    mount --bind "$dir/cpuinfo" "$1/proc/cpuinfo" && mounted+=("$1/proc/cpuinfo")
}
for d in "$ROOT" "$BASE"; do   # mounts left by an interrupted run
    for m in proc/cpuinfo dev/pts dev sys proc; do mountpoint -q "$d/$m" 2>/dev/null && umount -l "$d/$m"; done
done
safe_rm() {    # only folders this script made
    [ -e "$1" ] || return 0
    [ -e "$1/$MARK" ] || die "$1 exists and was not made by this script: remove it or pick --root"
    rm -rf --one-file-system "$1"
}
mkdir -p "$dir" "$LOGS"
rm -f "$LOGS"/[1-4]*-*.log

if [ "$fresh" = 1 ] || [ ! -e "$BASE/$MARK.done" ]; then
    safe_rm "$BASE"
    mkdir -p "$BASE" && touch "$BASE/$MARK"
    # what a Pi user starts with (Python 3, sudo), plus git, make and the venv module
    include=sudo,git,make,ca-certificates,python3,python3-venv
    say "debootstrap, first stage (host): $suite arm64 minbase + $include"
    debootstrap --arch=arm64 --foreign --variant=minbase --include="$include" \
        "$suite" "$BASE" "$mirror" > "$LOGS/debootstrap.log" 2>&1 \
        || { tail -n 20 "$LOGS/debootstrap.log"; die "debootstrap failed (log: $LOGS/debootstrap.log)"; }
    say "debootstrap, second stage (emulated arm64)"
    chroot "$BASE" /debootstrap/debootstrap --second-stage >> "$LOGS/debootstrap.log" 2>&1 \
        || { tail -n 20 "$LOGS/debootstrap.log"; die "second stage failed (log: $LOGS/debootstrap.log)"; }
    touch "$BASE/$MARK.done"
    say "base root ready: $(du -sh --one-file-system "$BASE" | cut -f1)"
else
    say "base root: reused $BASE (--fresh makes it again)"
fi

say "copying the base to $ROOT"
safe_rm "$ROOT"
cp -a "$BASE" "$ROOT"
rm -f "$ROOT/$MARK.done"
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
echo "deb $mirror $suite main" > "$ROOT/etc/apt/sources.list"
# certificate authorities the host added (a network that inspects TLS needs them in here too)
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    mkdir -p "$ROOT/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$ROOT/usr/local/share/ca-certificates/"
fi
# pip upgraded from PyPI trusts its own certifi bundle; use the system's (the same on a Pi)
printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' > "$ROOT/etc/pip.conf"
mount_in "$ROOT"

in_root() {    # in_root USER COMMAND: a clean login-like environment, no host variables
    local user=$1; shift
    local home=/root
    [ "$user" = root ] || home=$HOME_IN
    chroot "$ROOT" /usr/bin/env -i HOME="$home" USER="$user" LOGNAME="$user" LANG=C.UTF-8 \
        PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin:$home/.local/bin \
        SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy QEMU_CPU=cortex-a72 \
        /usr/sbin/runuser -u "$user" -- /bin/bash -c "cd ~ && $*"
}
in_root root "update-ca-certificates >/dev/null 2>&1 || true"
in_root root "useradd -m -s /bin/bash $USER_NAME \
    && echo '$USER_NAME ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/$USER_NAME && chmod 440 /etc/sudoers.d/$USER_NAME"
git clone --quiet "$REPO" "$ROOT$HOME_IN/dicetray"
commit=$(git -C "$REPO" rev-parse --short HEAD)
in_root root "chown -R $USER_NAME: $HOME_IN"
say "root ready: $(in_root root '. /etc/os-release; echo $PRETTY_NAME') on $(in_root root 'uname -m'), \
python $(in_root root 'python3 -c "import platform; print(platform.python_version())"'), dicetray at $commit"

# ---------------------------------------------------------------------------- the checks
results=() failed=0
check() {      # check SLUG NAME COMMAND: run as the user in the clone, log, time, verdict
    local name=$2 cmd=$3 log rc start=$SECONDS
    log="$LOGS/$1.log"
    say "check: $name"
    echo "  \$ $cmd"
    set +e
    in_root "$USER_NAME" "cd dicetray && $cmd" > "$log" 2>&1
    rc=$?
    set -e
    local took=$((SECONDS - start))
    if [ $rc = 0 ]; then
        results+=("PASS  $(printf '%5ds' "$took")  $name")
    else
        results+=("FAIL  $(printf '%5ds' "$took")  $name (exit $rc, log $log)")
        failed=1
        tail -n 25 "$log" | sed 's/^/  | /'
    fi
    say "  $([ $rc = 0 ] && echo passed || echo "FAILED (exit $rc)") in ${took}s; log $log"
    return 0
}
stop_early() { [ "$failed" = 1 ] && [ "$keep_going" = 0 ]; }

check 1-dry-run "make pi-install ARGS=--dry-run" "make pi-install ARGS=--dry-run"
stop_early || check 2-install-pi "install-pi.sh --no-camera --no-start (for real)" \
    "hardware/install-pi.sh --no-camera --no-start && ~/.local/bin/dicetray --help >/dev/null"
# its check must run to the end (exit 1 for the [FIX] lines a chroot has) and load every model
stop_early || check 2b-pi-check "python -m hardware.pi in the Pi venv (onnx and kms/egl ok)" \
    'out=$(~/.local/share/dicetray/venv/bin/python -m hardware.pi 2>&1); rc=$?; echo "$out";
     [ $rc -le 1 ] && grep -q "^\[ok \] onnx" <<< "$out" && grep -q "^\[ok \] kms/egl" <<< "$out"'
stop_early || check 3-wheel "pip install . (wheel, new venv) + dicetray demo outside the clone" \
    "python3 -m venv ~/wheel-venv && ~/wheel-venv/bin/pip install --quiet . \
     && cd ~ && ~/wheel-venv/bin/dicetray demo --out ~/wheel-demo"
stop_early || check 4-make-run "make run" "make run"

# what the install found and what the demo did, from the logs
if [ -f "$LOGS/2b-pi-check.log" ]; then
    echo
    echo "python -m hardware.pi in the emulated root (no camera, no GPIO here: its FIX lines are expected):"
    grep -E '^\[' "$LOGS/2b-pi-check.log" | sed 's/^/  /' || true
fi
for f in "$LOGS/3-wheel.log" "$LOGS/4-make-run.log"; do
    [ -f "$f" ] && grep -E 'rolls, .* frames read|^winner' "$f" | sed "s|^|  $(basename "$f" .log): |" || true
done
if [ -d "$ROOT$HOME_IN/dicetray/.venv" ]; then
    echo "  versions in make run's venv (arm64):"
    in_root "$USER_NAME" "dicetray/.venv/bin/python -m pip list 2>/dev/null" \
        | grep -iE '^(numpy|onnxruntime|opencv-python-headless|pygame-ce) ' | sed 's/^/    /' || true
fi

echo
echo "Emulated Raspberry Pi check, Debian $suite arm64 under qemu-user, dicetray $commit:"
printf '  %s\n' "${results[@]}"
echo "  total $(stamp)"
exit "$failed"
