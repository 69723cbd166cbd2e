#!/bin/sh
# Checks tests/pycuda/nvcc-ptx/nvcc against a stand-in for the real nvcc
# that records its arguments: --cubin becomes --ptx and the PTX lands where
# PyCUDA reads the cubin; other invocations pass through unchanged; the real
# nvcc's failure is the wrapper's failure. Needs no CUDA toolkit.
# Usage: test_nvcc_ptx.sh WORK_DIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
work="$1/nvcc-ptx-test"
rm -rf "$work" && mkdir -p "$work" || exit 1
fake="$work/fake-nvcc"
cat > "$fake" <<'FAKE'
#!/bin/sh
printf '%s\n' "$@" > args.txt
for a in "$@"; do
    [ "$a" = --fail ] && exit 3
    [ "$a" = --ptx ] && echo ".version 8.0" > kernel.ptx
done
exit 0
FAKE
chmod +x "$fake" || exit 1
failures=0
check() { # DESCRIPTION CONDITION...
    what="$1"; shift
    if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; failures=$((failures + 1)); fi
}
cd "$work" || exit 1
GG_REAL_NVCC="$fake" "$here/nvcc-ptx/nvcc" --cubin -arch sm_80 -I"/a dir" kernel.cu
check "--cubin exits 0" [ $? -eq 0 ]
check "--cubin became --ptx" grep -qx -- --ptx args.txt
check "no --cubin reached nvcc" sh -c '! grep -qx -- --cubin args.txt'
check "arguments kept in order, spaces intact" \
    sh -c '[ "$(tr "\n" "|" < args.txt)" = "--ptx|-arch|sm_80|-I/a dir|kernel.cu|" ]'
check "the PTX is where PyCUDA reads the cubin" grep -q '^.version' kernel.cubin
check "no kernel.ptx left" [ ! -e kernel.ptx ]
rm -f kernel.cubin args.txt
GG_REAL_NVCC="$fake" "$here/nvcc-ptx/nvcc" --version
check "--version passes through" sh -c '[ "$(cat args.txt)" = --version ] && [ ! -e kernel.cubin ]'
GG_REAL_NVCC="$fake" "$here/nvcc-ptx/nvcc" --cubin --fail kernel.cu
check "the real nvcc's status comes back" [ $? -eq 3 ]
GG_REAL_NVCC="$work/absent" "$here/nvcc-ptx/nvcc" --cubin kernel.cu 2> err.txt
status=$?
check "no real nvcc: 127 and a reason" sh -c "[ $status -eq 127 ] && grep -q 'no real nvcc' err.txt"
[ "$failures" -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "all checks passed"
