#!/usr/bin/env python3
"""Library instructions per call of each measured entry point, ours and
Debian's, with where ours spends them (tools/bench/README.md, "Where the
instructions go").

  per_call.py [--build DIR] [--board NAME] [--top N] [--out FILE.md]

For every (case, entry point) of ENTRY_POINTS and both libraries, runs
hke-bench under the LD_PRELOAD simulator and `valgrind --tool=callgrind
--toggle-collect=<entry point>` (only that function and what it calls are
counted), then splits the count:

  simulator  every call from outside libkfdsim-preload.so into it, with all
             it runs (its libc and libstdc++ calls included): what a kernel
             would do on real hardware
  library    the rest: the entry point, the library's own code and the libc
             it calls itself

and divides by the entry point's number of calls (callgrind's call counts).
hke-bench runs with HKE_BENCH_NO_ATTRIBUTION=1: its attributed iteration
(a stack unwind per heap allocation, to say whose it is) would otherwise be
charged to a library that allocates.
--top N lists, per entry point of ours, the N functions of the library's
object with the largest self cost per call. Writes a Markdown table to
stdout (and --out). Needs valgrind; takes a few minutes.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter

ENTRY_POINTS = [
    ("alloc-map-free/sys-4K", ["hsaKmtAllocMemory", "hsaKmtMapMemoryToGPU",
                               "hsaKmtUnmapMemoryToGPU", "hsaKmtFreeMemory"]),
    ("alloc-map-free/vram-4K", ["hsaKmtAllocMemory", "hsaKmtFreeMemory"]),
    ("event-set-wait", ["hsaKmtSetEvent", "hsaKmtWaitOnEvent"]),
    ("queue-create-destroy/sdma", ["hsaKmtCreateQueue", "hsaKmtDestroyQueue"]),
    ("queue-create-destroy/aql", ["hsaKmtCreateQueue", "hsaKmtDestroyQueue"]),
    ("query-pointer/1000", ["hsaKmtQueryPointerInfo"]),
]

SIM_OBJECT = "kfdsim-preload"


class Profile:
    """One callgrind output file: total cost, the simulator's inclusive
    share, self cost per (object, function) and call counts per callee."""

    def __init__(self, path):
        self.total = 0
        self.sim = 0
        self.self_cost = Counter()
        self.calls = Counter()
        names = {"ob": {}, "fn": {}}

        def name(kind, text):
            m = re.match(r"\((\d+)\)(?:\s+(.*))?", text)
            if not m:
                return text
            if m.group(2) is not None:
                names[kind][m.group(1)] = m.group(2)
                return m.group(2)
            return names[kind].get(m.group(1), text)

        ob = fn = cob = cfn = ""
        pending = None
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if line.startswith("ob="):
                    ob, cob = name("ob", line[3:]), None
                elif line.startswith("fn="):
                    fn, cob = name("fn", line[3:]), None
                elif line.startswith("cob="):
                    cob = name("ob", line[4:])
                elif line.startswith("cfn="):
                    cfn = name("fn", line[4:])
                elif line.startswith("calls="):
                    pending = int(line[6:].split()[0])
                elif line[:1].isdigit() or line[:1] in "+-*":
                    parts = line.split()
                    if len(parts) < 2:
                        continue
                    cost = int(parts[1])
                    if pending is not None:
                        callee_ob = cob or ob
                        if SIM_OBJECT in callee_ob and SIM_OBJECT not in ob:
                            self.sim += cost
                        self.calls[cfn] += pending
                        pending = None
                        # cob= holds for one call only: a call without it
                        # is into the caller's own object.
                        cob = None
                    else:
                        self.total += cost
                        self.self_cost[(ob, fn)] += cost


def short_name(fn):
    """A demangled name without its return type, template and parameter
    lists: "hke::memory::internal::MapOrUnmap" for
    "hke::Status hke::memory::internal::(anonymous namespace)::MapOrUnmap<...>(...)"."""
    fn = fn.replace("(anonymous namespace)::", "").split(" [clone")[0]
    out, depth = "", 0
    for ch in fn:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif depth == 0:
            out += ch
    out = out.strip()
    if out.endswith(" const"):
        out = out[: -len(" const")]
    return out.split(" ")[-1]


def run(build, board, library, case, fn, workdir):
    out = os.path.join(workdir, "cg.%s.%s.%s" % (library, case.replace("/", "_"), fn))
    env = dict(os.environ)
    env.pop("KFDSIM_TOPOLOGY", None)
    env["KFDSIM_BOARD"] = board
    env["LD_PRELOAD"] = os.path.join(build, "platform/sim/preload/libkfdsim-preload.so")
    env["HKE_BENCH_NO_ATTRIBUTION"] = "1"
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
           "--toggle-collect=" + fn, os.path.join(build, "tools/bench/hke-bench"),
           "--only", library, "--case", case, "--iterations", "200",
           "--records", os.path.join(workdir, "records.jsonl"), "--no-header"]
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return Profile(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build/release")
    ap.add_argument("--board", default="datacenter-4gpu")
    ap.add_argument("--top", type=int, default=0)
    ap.add_argument("--out")
    a = ap.parse_args()
    lines = ["| case | entry point | ours | Debian | ours / Debian |", "|---|---|---:|---:|---:|"]
    tops = []
    with tempfile.TemporaryDirectory() as wd:
        for case, fns in ENTRY_POINTS:
            for fn in fns:
                per = {}
                for lib in ("ours", "debian"):
                    p = run(a.build, a.board, lib, case, fn, wd)
                    n = max(p.calls[fn], 1)
                    per[lib] = (p.total - p.sim) / n
                    if lib == "ours" and a.top:
                        own = [(c / n, f) for (o, f), c in p.self_cost.items()
                               if "hke-bench" in o and not f.startswith("hkebench::")
                               and f not in ("malloc", "free", "calloc", "realloc")]
                        own.sort(reverse=True)
                        tops.append((case, fn, own[:a.top]))
                lines.append("| %s | %s | %.0f | %.0f | %.2f |" % (
                    case, fn, per["ours"], per["debian"], per["ours"] / max(per["debian"], 1)))
                print(lines[-1], file=sys.stderr)
    text = "\n".join(lines) + "\n"
    for case, fn, own in tops:
        text += "\n%s, %s (ours, self instructions per call):\n\n" % (case, fn)
        text += "".join("- %.0f %s\n" % (c, short_name(f)) for c, f in own)
    sys.stdout.write(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
