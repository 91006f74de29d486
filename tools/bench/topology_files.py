#!/usr/bin/env python3
"""Files and system calls of one cold topology cycle (topology_files.sh).

  tree     (run under the simulator's preload) counts the files of the served
           tree a cold parse may read: KFD topology files (generation_id,
           system_properties, every node's gpu_id/properties/name and the
           properties of its mem_banks, caches, io_links, p2p_links) and, for
           a CPU node whose caches_count is 0, the eight files of every CPU
           cache index directory both libraries read from (level, type, size,
           coherency_line_size, ways_of_associativity,
           physical_line_partition, shared_cpu_map, shared_cpu_list).
  cycle    turns two strace logs (1 and 3 timed iterations) into one JSON line:
           system calls per cycle, opens per cycle, distinct files opened
           per cycle and the files opened more than once in a cycle.
  render   writes the markdown section for results.md from those lines.
"""
import argparse
import collections
import json
import os
import re
import sys

CPU_FILES = ("level", "type", "size", "coherency_line_size", "ways_of_associativity",
             "physical_line_partition", "shared_cpu_map", "shared_cpu_list")
ROOT = "/sys/devices/virtual/kfd/kfd/topology"


def tree():
    kfd, cpu, cpu_dirs = 2, 0, 0
    for n in sorted(int(x) for x in os.listdir(ROOT + "/nodes")):
        d = f"{ROOT}/nodes/{n}"
        kfd += sum(1 for f in ("gpu_id", "properties", "name") if os.path.exists(f"{d}/{f}"))
        props = {}
        with open(f"{d}/properties") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) >= 2:
                    props[parts[0]] = parts[1]
        for sub in ("mem_banks", "caches", "io_links", "p2p_links"):
            if os.path.isdir(f"{d}/{sub}"):
                kfd += sum(1 for e in os.listdir(f"{d}/{sub}")
                           if os.path.exists(f"{d}/{sub}/{e}/properties"))
        if props.get("caches_count") != "0" or props.get("cpu_cores_count", "0") == "0":
            continue
        base = f"/sys/devices/system/node/node{n}"
        if not os.path.isdir(base):
            base = "/sys/devices/system/cpu"
        for c in os.listdir(base):
            cd = f"{base}/{c}/cache"
            if not (c.startswith("cpu") and c[3:].isdigit()) or not os.path.isdir(cd):
                continue
            for i in os.listdir(cd):
                if i.startswith("index"):
                    cpu_dirs += 1
                    cpu += sum(1 for f in CPU_FILES if os.path.exists(f"{cd}/{i}/{f}"))
    print(json.dumps({"kfd_files": kfd, "cpu_cache_files": cpu, "cpu_cache_dirs": cpu_dirs}))


LINE = re.compile(r'^(\d+)\s+([a-z0-9_]+)\((.*)')
OPEN_PATH = re.compile(r'^(AT_FDCWD|\d+), "([^"]*)", ([A-Z_|]+)')
RESULT = re.compile(r'\)\s+=\s+(-?\d+)')


def scan(path):
    """System calls by name and read-only file opens by path (the simulator's
    private root removed), from an `strace -f` log."""
    calls, opens = collections.Counter(), collections.Counter()
    # Directories open per (pid, fd), so that an openat relative to one
    # (the platform's read_file_at) counts under the file's full path.
    dirs = {}
    with open(path, errors="replace") as fh:
        for line in fh:
            m = LINE.match(line)
            if not m:
                continue
            pid, name, args = m.group(1), m.group(2), m.group(3)
            calls[name] += 1
            r = RESULT.search(args)
            if name == "close" and r and r.group(1) == "0":
                dirs.pop((pid, args.split(")")[0].strip()), None)
            if name in ("openat", "open"):
                if name == "open":
                    args = "AT_FDCWD, " + args
                o = OPEN_PATH.match(args)
                if o and "O_WRONLY" not in o.group(3) and "O_RDWR" not in o.group(3):
                    p = o.group(2)
                    if not p.startswith("/") and o.group(1) != "AT_FDCWD":
                        p = dirs.get((pid, o.group(1)), "?") + "/" + p
                    p = re.sub(r"^/dev/shm/kfdsim\.[^/]+", "", p)
                    if "O_DIRECTORY" in o.group(3):
                        if r and int(r.group(1)) >= 0:
                            dirs[(pid, r.group(1))] = p
                        p += "/"
                    opens[p] += 1
    return calls, opens


def cycle(args):
    with open(args.tree) as fh:
        t = json.load(fh)
    c1, o1 = scan(args.one)
    c3, o3 = scan(args.three)
    per_call = {k: (c3[k] - c1[k]) / 2 for k in sorted(set(c1) | set(c3)) if c3[k] != c1[k]}
    per_path = {p: (o3[p] - o1[p]) / 2 for p in set(o1) | set(o3) if o3[p] != o1[p]}
    files = {p: v for p, v in per_path.items() if not p.endswith("/")}
    twice = sorted(p for p, v in files.items() if v > 1)
    rec = {
        "case": "topology-cycle-cold", "target": args.target, "library": args.library,
        "syscalls": per_call, "syscalls_total": sum(per_call.values()),
        "opens": per_call.get("openat", 0) + per_call.get("open", 0),
        "file_opens": sum(files.values()), "distinct_files": len(files),
        "dir_opens": sum(v for p, v in per_path.items() if p.endswith("/")),
        "opened_twice": twice, "tree": t,
    }
    print(json.dumps(rec))
    if args.files_out:
        with open(args.files_out, "w") as fh:
            for p in sorted(files):
                fh.write(f"{p}\n")


def render(args):
    recs = [json.loads(l) for l in open(args.file) if l.strip()]
    by = {(r["target"], r["library"]): r for r in recs}
    targets = list(dict.fromkeys(r["target"] for r in recs))
    out = ["## Files and system calls of one cold topology cycle", "",
           "`topology-cycle-cold`, one iteration (OpenKFD .. CloseKFD), from two `strace -f` runs "
           "(1 and 3 iterations; their difference halved). *tree files*: what the served tree holds "
           "that a cold parse may read (KFD topology files + the eight files of each CPU cache index "
           "directory of a CPU node without KFD caches). *file opens*: files opened per cycle "
           "(directories not included), *distinct*: different files among them, *twice*: files opened "
           "more than once in the cycle (generation_id is read before and after the parse by both). "
           "System calls include the simulator's (its preload fstat()s every descriptor it closes).", "",
           "| target | tree files (KFD + CPU cache) | library | file opens | distinct | twice | dir opens "
           "| openat | read | close | fstat+newfstatat | getdents64 | all traced |",
           "|---|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for t in targets:
        for lib in ("ours", "debian"):
            r = by.get((t, lib))
            if r is None:
                continue
            s = r["syscalls"]
            tr = r["tree"]
            twice = ", ".join(os.path.basename(p.rstrip("/")) for p in r["opened_twice"][:3])
            if len(r["opened_twice"]) > 3:
                twice += f" (+{len(r['opened_twice']) - 3})"
            out.append(
                f"| {t} | {tr['kfd_files'] + tr['cpu_cache_files']} ({tr['kfd_files']} + "
                f"{tr['cpu_cache_files']}) | {lib} | {r['file_opens']:.0f} | {r['distinct_files']} | "
                f"{twice or '—'} | {r['dir_opens']:.0f} | {s.get('openat', 0):.0f} | {s.get('read', 0):.0f} | "
                f"{s.get('close', 0):.0f} | {s.get('fstat', 0) + s.get('newfstatat', 0):.0f} | "
                f"{s.get('getdents64', 0):.0f} | {r['syscalls_total']:.0f} |")
    print("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("tree")
    c = sub.add_parser("cycle")
    for a in ("--target", "--library", "--tree", "--one", "--three"):
        c.add_argument(a, required=True)
    c.add_argument("--files-out", help="write the files opened in one cycle, one a line")
    r = sub.add_parser("render")
    r.add_argument("file")
    args = ap.parse_args()
    {"tree": lambda a: tree(), "cycle": cycle, "render": render}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
