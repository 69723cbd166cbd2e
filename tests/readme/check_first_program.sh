#!/bin/sh
# Compiles and runs README.md's first program: the ```c block under the
# heading "## A first program", built with the compiler and flags the README
# shows, against this build's headers and library, run over the simulated
# driver (GPUGUARD_BACKEND=sim). Its output must be the ```text block that
# follows it, exactly. The program must stay short (at most 30 lines).
#   check_first_program.sh README INCLUDE_DIR LIB_DIR CC
set -u
readme=$1 include=$2 libdir=$3 cc=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# block LANG: the first ```LANG block under the heading.
block() {
    awk -v lang="$1" '
        /^## / { in_section = ($0 == "## A first program") }
        in_section && !inside && $0 == "```" lang { inside = 1; next }
        inside && $0 == "```" { exit }
        inside { print }' "$readme"
}
block c > "$work/first.c"
block text > "$work/expected"
[ -s "$work/first.c" ] || fail "no \`\`\`c block under '## A first program' in $readme"
[ -s "$work/expected" ] || fail "no \`\`\`text block (the program's output) under '## A first program' in $readme"
lines=$(wc -l < "$work/first.c")
[ "$lines" -le 30 ] || fail "the first program has $lines lines: keep it to 30 at most"
cd "$work" || exit 1
"$cc" -std=c11 -Wall -Wextra -Werror -o first first.c -I"$include" -L"$libdir" -lgpuguard \
    -Wl,-rpath,"$libdir" > build.log 2>&1 || { cat build.log; fail "the first program does not compile"; }
GPUGUARD_BACKEND=sim ./first > out 2> err
rc=$?
cat out err
[ "$rc" -eq 0 ] || fail "the first program exited $rc"
[ ! -s err ] || fail "the first program wrote to stderr"
diff -u expected out || fail "the first program's output is not what README.md shows"
echo "README's first program checked: $lines lines, output as shown"
