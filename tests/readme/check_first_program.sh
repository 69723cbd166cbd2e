#!/bin/sh
# Compiles and runs README.md's first program: the ```c block under the
# heading "## A first program", built and run by the README's own ```sh
# block (its commands as written, with the source tree's include/, the
# build's generated include/ (gpuguard/version.h) and build-demo/lib
# replaced by this build's, and cc by this build's compiler).
# Its output must be the ```text block that follows, exactly. The program
# must stay short (at most 30 lines).
#   check_first_program.sh README INCLUDE_DIR LIB_DIR CC
set -u
readme=$1 include=$2 libdir=$3 cc=$4
built_include=$(dirname "$libdir")/include # build/lib -> build/include
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
block sh > "$work/commands.sh"
grep -q '^cc .*first\.c.*-Iinclude -Ibuild-demo/include .*-Lbuild-demo/lib .*\$PWD/build-demo/lib' "$work/commands.sh" &&
    grep -q '^GPUGUARD_BACKEND=sim \./first$' "$work/commands.sh" ||
    fail "the \`\`\`sh block under '## A first program' is not 'cc ... first.c -Iinclude -Ibuild-demo/include -Lbuild-demo/lib ... \$PWD/build-demo/lib' then 'GPUGUARD_BACKEND=sim ./first'"
# This build's paths for the source tree's (| cannot be in them: CMake's).
sed -e "s|^cc |\"$cc\" |" -e "s|\\\$PWD/build-demo/lib|$libdir|g" -e "s|-Lbuild-demo/lib|-L$libdir|g" \
    -e "s|-Ibuild-demo/include|-I$built_include|g" -e "s|-Iinclude|-I$include|g" "$work/commands.sh" > "$work/run.sh"
cd "$work" || exit 1
cat run.sh
sh -e run.sh > out 2> err
rc=$?
cat out err
[ "$rc" -eq 0 ] || fail "the README's commands exited $rc"
[ -x first ] || fail "the README's commands built no ./first"
[ ! -s err ] || fail "the first program wrote to stderr"
diff -u expected out || fail "the first program's output is not what README.md shows"
echo "README's first program checked: $lines lines, output as shown"
