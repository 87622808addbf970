# The dicetray lines in a shared file such as ~/.config/labwc/autostart, between two marker
# lines: written again in place (never twice), removed cleanly, the rest of the file kept.
# Sourced by install-pi.sh; `dry=1` only prints what would be written.
BEGIN="# >>> dicetray (hardware/install-pi.sh) >>>"
END="# <<< dicetray <<<"

# _without_block FILE: FILE's lines outside the markers (exact line match, no regex).
_without_block() {
    B="$BEGIN" E="$END" awk '$0 == ENVIRON["B"] {skip = 1} !skip {print} $0 == ENVIRON["E"] {skip = 0}' "$1"
}

# write_block FILE LINES: put LINES between the markers in FILE (replacing an old block).
write_block() {
    local file=$1 lines=$2
    echo "+ write into $file:"
    printf '%s\n%s\n%s\n' "$BEGIN" "$lines" "$END" | sed 's/^/      /'
    [ "${dry:-0}" = 1 ] && return 0
    mkdir -p "$(dirname "$file")"
    local tmp="$file.dicetray-new"
    if [ -f "$file" ]; then _without_block "$file" > "$tmp"; else : > "$tmp"; fi
    printf '%s\n%s\n%s\n' "$BEGIN" "$lines" "$END" >> "$tmp"
    mv "$tmp" "$file"
}

# drop_block FILE: remove the marked lines from FILE, if any.
drop_block() {
    local file=$1
    [ -f "$file" ] && grep -qxF "$BEGIN" "$file" || return 0
    echo "+ remove the dicetray lines from $file"
    [ "${dry:-0}" = 1 ] && return 0
    _without_block "$file" > "$file.dicetray-new" && mv "$file.dicetray-new" "$file"
}
