#!/usr/bin/python3
"""Accepts the ABI of a build as the new baseline (tools/abi/README.md).

usage: tools/abi/update_baseline.py [BUILD_DIR]        (default: build)
       tools/abi/update_baseline.py --library LIB [--headers DIR] [--baseline FILE]
                                    [--prefix P]

Builds libgpuguard in BUILD_DIR (cmake --build BUILD_DIR --target gpuguard;
the tree must be configured with debug info: RelWithDebInfo, as
scripts/test.sh does, or Debug), prints what changes against the old
baseline, and writes tools/abi/baseline/libgpuguard.abi. Commit that file
with the change that needed it. --library skips the build and dumps LIB
(the tests use it on their probe libraries).
"""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import abi_dump  # noqa: E402  (the folder is put on the path just above)
import check_abi  # noqa: E402


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n", 1)[0],
        usage="tools/abi/update_baseline.py [BUILD_DIR] | --library LIB "
              "[--headers DIR] [--baseline FILE]")
    parser.add_argument("build_dir", nargs="?", default="build")
    parser.add_argument("--library")
    parser.add_argument("--headers", action="append", metavar="DIR",
                        help="a folder of public headers (repeatable; "
                             "default include/gpuguard)")
    parser.add_argument("--baseline", default=str(check_abi.DEFAULT_BASELINE))
    parser.add_argument("--prefix", default="gg_")
    args = parser.parse_args()

    library = args.library
    if library is None:
        build_dir = Path(args.build_dir)
        if not (build_dir / "CMakeCache.txt").is_file():
            print(f"error: {build_dir} is not a configured build tree "
                  "(run scripts/test.sh, or cmake -S . -B build "
                  "-DCMAKE_BUILD_TYPE=RelWithDebInfo)")
            return 2
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "gpuguard"],
                       check=True)
        library = str(build_dir / "lib/libgpuguard.so")
    baseline = Path(args.baseline)
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "fresh.abi"
        try:
            new = abi_dump.dump(library, args.headers or [check_abi.DEFAULT_HEADERS],
                                str(fresh))
        except abi_dump.AbiToolError as err:
            print(f"error: {err}")
            return 2
        if baseline.is_file():
            breaks, additions = check_abi.compare(abi_dump.read(str(baseline)), new,
                                                  args.prefix)
            for line in breaks:
                print(f"  accepting BREAK: {line}")
            for line in additions:
                print(f"  accepting addition: {line}")
            if not breaks and not additions:
                print("  no change in the compared ABI")
        baseline.parent.mkdir(parents=True, exist_ok=True)
        baseline.write_bytes(fresh.read_bytes())
    print(f"wrote {baseline}: {len(new.symbols)} symbols, {len(new.structs)} structs, "
          f"{len(new.enums)} enums; commit it with the change that needed it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
