"""hsakmt-info's failures are one clear line on stderr, exit status 1 and
nothing on stdout: a captured tree the simulator serves but the library
refuses (a value too wide for its key) must name the failed call, the
library's status and the file and line, with and without --json.

  python3 check_info_errors.py HSAKMT_INFO FIXTURE_TREE"""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def main():
    exe, fixture = sys.argv[1], sys.argv[2]
    errors = []
    with tempfile.TemporaryDirectory(prefix="hsakmt-info-") as tmp:
        tree = os.path.join(tmp, "tree")
        shutil.copytree(fixture, tree)
        link = os.path.join(tree, "nodes", "1", "io_links", "0", "properties")
        with open(link) as f:
            lines = f.read().splitlines()
        weight_line = next(i for i, l in enumerate(lines) if l.startswith("weight "))
        lines[weight_line] = "weight 99999999999"  # a u64 the simulator serves, 33 bits
        with open(link, "w") as f:
            f.write("\n".join(lines) + "\n")
        want = re.compile(
            r"^hsakmt-info: hsaKmtAcquireSystemProperties failed with "
            r"HSAKMT_STATUS_KERNEL_COMMUNICATION_ERROR \(21\): topology: .*weight.* @ "
            r"\S*/nodes/1/io_links/0/properties:%d\n$" % (weight_line + 1))
        for args in ([], ["--json"]):
            run = subprocess.run([exe] + args + ["--sim", tree], capture_output=True, text=True)
            what = "hsakmt-info %s--sim <tree with a 33-bit weight>" % (" ".join(args) + " " if args else "")
            if run.returncode != 1:
                errors.append("%s: exit status %d, expected 1" % (what, run.returncode))
            if run.stdout:
                errors.append("%s: printed on stdout: %r" % (what, run.stdout[:200]))
            if not want.match(run.stderr):
                errors.append("%s: stderr is not the one expected line: %r" % (what, run.stderr))
    for e in errors:
        print(e)
    if errors:
        sys.exit(1)
    print("hsakmt-info errors: one line each, status 1")


if __name__ == "__main__":
    main()
