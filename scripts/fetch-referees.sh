#!/usr/bin/env bash
# Fetches Debian packages that the tests use as referees (real libraries we
# did not write, e.g. NVIDIA's libcuda1) and unpacks them under build/,
# never installing anything system-wide.
#
#   scripts/fetch-referees.sh [--dest DIR] PACKAGE...
#
# DIR defaults to build/referees. For each PACKAGE it leaves:
#   DIR/debs/PACKAGE_*.deb   the package, downloaded with `apt-get download`
#   DIR/PACKAGE/             its files, unpacked with `dpkg -x`
#   DIR/PACKAGE.skip         only when it could not be fetched: the reason
# and prints one line saying what it did. A package already downloaded is
# not fetched again, so later runs make no network access.
#
# apt runs on a private configuration kept in DIR/apt (its own sources file,
# lists and cache), whose archive address and suite are read from this
# machine's own apt sources, with the contrib and non-free components added;
# the system's apt sources and state are never changed. Fails soft: with no
# network, no apt-get or no such package it records the reason and exits 0,
# and the tests over that package report themselves skipped. Exit 2 only for
# a bad command line.
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

usage() { sed -n '5,6s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }

dest="$GG_ROOT/build/referees" packages=()
while (($#)); do
    case "$1" in
        --dest) (($# >= 2)) || { usage >&2; exit 2; }; dest="$2"; shift ;;
        -h|--help) usage; exit 0 ;;
        -*) printf 'unknown option: %s\n' "$1" >&2; usage >&2; exit 2 ;;
        *) packages+=("$1") ;;
    esac
    shift
done
((${#packages[@]})) || { usage >&2; exit 2; }

mkdir -p "$dest/debs"
dest="$(cd "$dest" && pwd)"

# Two test runs (say, scripts/test.sh and scripts/test.sh --sanitize) may
# fetch at once; one waits for the other, then finds the package there.
if command -v flock >/dev/null 2>&1; then
    exec {lock_fd}>"$dest/.lock"
    flock "$lock_fd"
fi

referee_log() { printf '==> referee %s\n' "$*"; }

# The .deb of PACKAGE already in DIR/debs, if any.
downloaded_deb() {
    local deb
    for deb in "$dest/debs/$1"_*.deb; do
        [[ -f "$deb" ]] && { printf '%s\n' "$deb"; return 0; }
    done
    return 1
}

# unpack PACKAGE DEB: dpkg -x into DIR/PACKAGE, replacing what was there.
# Unpacked beside it first, so an interrupted run never leaves half a tree.
unpack() {
    local pkg="$1" deb="$2" tmp="$dest/.$1.unpacking"
    rm -rf "$tmp"
    if ! dpkg-deb -x "$deb" "$tmp" 2>"$dest/.$pkg.unpack.log"; then
        rm -rf "$tmp"
        record_skip "$pkg" "dpkg-deb -x $deb failed: $(head -n 1 "$dest/.$pkg.unpack.log")"
        return 1
    fi
    rm -rf "${dest:?}/$pkg" "$dest/.$pkg.unpack.log"
    mv "$tmp" "$dest/$pkg"
    rm -f "$dest/$pkg.skip"
}

# record_skip PACKAGE REASON: the reason the tests over PACKAGE will give.
record_skip() {
    printf '%s\n' "$2" >"$dest/$1.skip"
    referee_log "$1 skipped: $2"
}

# Prints "URI SUITE [KEYRING]" for the machine's Debian archive: the first
# deb entry, in either sources format, whose suite is a release (bookworm,
# stable), not an update, backports or security suite.
debian_archive() {
    local file
    {
        [[ -f /etc/apt/sources.list ]] && cat /etc/apt/sources.list
        for file in /etc/apt/sources.list.d/*.list; do
            [[ -f "$file" ]] && cat "$file"
        done
    } | awk '
        { sub(/#.*/, "") }
        $1 == "deb" {
            keyring = ""; i = 2
            if ($2 ~ /^\[/) {            # [option=value ...]
                for (; i <= NF; i++) {
                    if ($i ~ /^\[?signed-by=/) { keyring = $i; sub(/^\[?signed-by=/, "", keyring); sub(/\]$/, "", keyring) }
                    if ($i ~ /\]$/) { i++; break }
                }
            }
            if ($(i + 1) !~ /-/) { print $i, $(i + 1), keyring; exit }
        }'
    for file in /etc/apt/sources.list.d/*.sources; do
        [[ -f "$file" ]] && cat "$file" && printf '\n'
    done | awk '
        function flush() {
            if (types ~ /(^| )deb( |$)/ && enabled != "no" && uri != "")
                for (s = 1; s <= nsuites; s++)
                    if (suites[s] !~ /-/) { print uri, suites[s], keyring; found = 1; exit }
            types = uri = keyring = enabled = ""; nsuites = 0
        }
        /^[ \t]*#/ { next }             # a comment line does not end a stanza
        /^[ \t]*$/ { flush(); next }
        tolower($1) == "types:"     { types = $0; sub(/^[^:]*:[ \t]*/, "", types) }
        tolower($1) == "uris:"      { uri = $2 }
        tolower($1) == "suites:"    { nsuites = split($0, suites); for (s = 1; s < nsuites; s++) suites[s] = suites[s + 1]; nsuites-- }
        tolower($1) == "signed-by:" { keyring = $2 }
        tolower($1) == "enabled:"   { enabled = tolower($2) }
        END { if (!found) flush() }'
}

# The private apt: options that point every file apt reads or writes for
# sources, lists and packages into DIR/apt (apt.conf.d, e.g. a proxy, still
# applies). Filled by setup_private_apt.
apt_options=()

# Writes DIR/apt/sources.list and runs apt-get update on it. Returns 1, with
# the reason recorded for every package in $@, when that cannot be done.
setup_private_apt() {
    local pkg reason="" archive uri suite keyring
    if ! command -v apt-get >/dev/null 2>&1; then
        reason="apt-get is not installed"
    elif ! command -v dpkg-deb >/dev/null 2>&1; then
        reason="dpkg-deb is not installed"
    else
        archive="$(debian_archive 2>/dev/null || true)"
        archive="${archive%%$'\n'*}"
        [[ -n "$archive" ]] ||
            reason="no Debian archive entry (deb ... SUITE, not -security/-updates) in /etc/apt/sources.list or /etc/apt/sources.list.d/"
    fi
    if [[ -z "$reason" ]]; then
        read -r uri suite keyring <<<"$archive"
        keyring="${keyring:-/usr/share/keyrings/debian-archive-keyring.gpg}"
        [[ -r "$keyring" ]] || reason="the archive keyring $keyring is missing (package debian-archive-keyring)"
    fi
    if [[ -n "$reason" ]]; then
        for pkg in "$@"; do record_skip "$pkg" "$reason"; done
        return 1
    fi

    local apt="$dest/apt"
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
    printf 'deb [signed-by=%s] %s %s main contrib non-free\n' "$keyring" "$uri" "$suite" \
        >"$apt/sources.list"
    apt_options=(
        -o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
        -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache"
        -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
        # Offline, fail within seconds rather than apt's two minutes.
        -o Acquire::Retries=0 -o Acquire::http::Timeout=20 -o Acquire::https::Timeout=20
    )
    # As root apt would hand the download to its _apt user, who may not be
    # able to write under the checkout; the files are only downloaded here.
    [[ "$(id -u)" == 0 ]] && apt_options+=(-o APT::Sandbox::User=root)

    # apt-get update exits 0 when an index cannot be fetched (it keeps the
    # old one, or none): its "W: Failed to fetch" lines say so.
    local log="$apt/update.log" status=0
    apt-get "${apt_options[@]}" -q update >"$log" 2>&1 || status=$?
    if ((status != 0)) || grep -qE '^(E:|W: Failed to fetch)' "$log"; then
        reason="apt-get update of $suite main contrib non-free failed (no network?): $(grep -E '^(E|W):' "$log" | head -n 1)"
        for pkg in "$@"; do record_skip "$pkg" "$reason"; done
        return 1
    fi
    return 0
}

missing=()
for pkg in "${packages[@]}"; do
    if deb="$(downloaded_deb "$pkg")"; then
        if [[ ! -d "$dest/$pkg" ]]; then
            unpack "$pkg" "$deb" || continue
        fi
        referee_log "$pkg: $(basename "$deb") already in ${dest#"$GG_ROOT/"}, unpacked in ${dest#"$GG_ROOT/"}/$pkg"
    else
        missing+=("$pkg")
    fi
done
((${#missing[@]})) || exit 0

started=$SECONDS
setup_private_apt "${missing[@]}" || exit 0
for pkg in "${missing[@]}"; do
    log="$dest/apt/download-$pkg.log"
    if ! (cd "$dest/debs" && apt-get "${apt_options[@]}" -q download "$pkg") >"$log" 2>&1; then
        record_skip "$pkg" "apt-get download $pkg failed: $(grep -E '^(E|W):' "$log" | head -n 1)"
        continue
    fi
    if ! deb="$(downloaded_deb "$pkg")"; then
        record_skip "$pkg" "apt-get download $pkg left no ${pkg}_*.deb in $dest/debs"
        continue
    fi
    unpack "$pkg" "$deb" || continue
    referee_log "$pkg: fetched $(basename "$deb") in $((SECONDS - started)) s, unpacked in ${dest#"$GG_ROOT/"}/$pkg"
done
exit 0
