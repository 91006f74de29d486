#!/usr/bin/env python3
"""hsakmt-info prints every cache's true size, in the text and in --json.

    check_info_caches.py <hsakmt-info> <libkfdsim-preload.so> <board-or-tree>

HsaCacheProperties.CacheSize is in bytes on CPU nodes (the library reads
/sys/devices/system/cpu/cpu<K>/cache/index<I>/size, as upstream) and in KiB
on GPU nodes (the KFD's caches/<i>/properties "size"). The expected sizes
are read from the board's own files, through the simulator's LD_PRELOAD
front end (this script runs itself under it with --read-files), not from
the tool:
  - every CPU node's (level, bytes) pairs are those of the CPU cache
    directories;
  - every GPU node's caches, in order, are its KFD cache files' size x 1024;
  - the text output lists, per agent, the same (level, size) pairs as the
    JSON ("32 KiB", "1 MiB", ... as bytes).
"""
import glob
import json
import os
import re
import subprocess
import sys

KFD_NODES = "/sys/class/kfd/kfd/topology/nodes"
UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def fail(msg):
    sys.exit("FAIL: " + msg)


def read_props(path):
    props = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2 and re.fullmatch(r"\d+", parts[1]):
                props[parts[0]] = int(parts[1])
    return props


def sysfs_size(text):
    """'32K' -> 32768 (the kernel's cacheinfo format)."""
    m = re.fullmatch(r"\s*(\d+)([KMG]?)\s*", text)
    if not m:
        fail("malformed cache size %r" % text)
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


def read_files():
    """Runs under the preload: prints what the board's files say."""
    cpu = set()
    for d in glob.glob("/sys/devices/system/cpu/cpu[0-9]*/cache/index[0-9]*"):
        with open(os.path.join(d, "level")) as f:
            level = int(f.read())
        with open(os.path.join(d, "size")) as f:
            cpu.add((level, sysfs_size(f.read())))
    gpus = {}
    for n in os.listdir(KFD_NODES):
        with open(os.path.join(KFD_NODES, n, "gpu_id")) as f:
            gpu_id = int(f.read())
        if gpu_id == 0:
            continue
        p = read_props(os.path.join(KFD_NODES, n, "properties"))
        caches = []
        for i in range(p.get("caches_count", 0)):
            c = read_props(os.path.join(KFD_NODES, n, "caches", str(i), "properties"))
            caches.append([c["level"], c["size"] * 1024])
        gpus[str(gpu_id)] = caches
    json.dump({"cpu": sorted(cpu), "gpus": gpus}, sys.stdout)


def text_caches(text):
    """{node: set((level, bytes))} from the text output's agents."""
    out = {}
    node = None
    for line in text.splitlines():
        m = re.match(r"Agent \d+ \(node (\d+)\)", line)
        if m:
            node = int(m.group(1))
            out[node] = set()
            continue
        m = re.match(r"\s+L(\d+) \S+\s+(\d+)(?: (KiB|MiB|GiB|B))?, line ", line)
        if m and node is not None:
            unit = m.group(3) or "B"
            out[node].add((int(m.group(1)), int(m.group(2)) * UNITS[unit]))
    return out


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--read-files":
        read_files()
        return
    info, preload, target = sys.argv[1], sys.argv[2], sys.argv[3]
    env = dict(os.environ, LD_PRELOAD=preload)
    env.pop("KFDSIM_TOPOLOGY", None)
    env.pop("KFDSIM_BOARD", None)
    env["KFDSIM_TOPOLOGY" if os.path.isdir(target) else "KFDSIM_BOARD"] = target
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--read-files"], env=env,
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail("reading the board's files through the preload: %s" % p.stderr.strip())
    files = json.loads(p.stdout)
    cpu_expected = {tuple(x) for x in files["cpu"]}

    j = subprocess.run([info, "--json", "--sim", target], capture_output=True, text=True,
                       timeout=120)
    t = subprocess.run([info, "--sim", target], capture_output=True, text=True, timeout=120)
    if j.returncode != 0 or t.returncode != 0:
        fail("hsakmt-info failed: %s %s" % (j.stderr.strip(), t.stderr.strip()))
    doc = json.loads(j.stdout)
    printed = text_caches(t.stdout)
    cpu_nodes = 0
    for n in doc["nodes"]:
        where = "node %d" % n["node"]
        caches = n["caches"]
        for c in caches:
            if "size" not in c:
                fail("%s: a cache without 'size' (bytes) in the JSON: %r" % (where, c))
        got = [(c["level"], c["size"]) for c in caches]
        if n["gpu_id"] == 0:
            if caches:
                cpu_nodes += 1
                if set(got) != cpu_expected:
                    fail("%s (CPU): caches %r, the CPU cache directories say %r"
                         % (where, sorted(set(got)), sorted(cpu_expected)))
        else:
            want = [tuple(x) for x in files["gpus"].get(str(n["gpu_id"]), [])]
            if got != want:
                fail("%s (GPU %d): caches %r, its KFD cache files say %r"
                     % (where, n["gpu_id"], got, want))
        if printed.get(n["node"], set()) != set(got):
            fail("%s: the text prints %r, the JSON says %r"
                 % (where, sorted(printed.get(n["node"], set())), sorted(set(got))))
    if cpu_nodes == 0 or not cpu_expected:
        fail("%s has no CPU node with caches: the check proves nothing" % target)
    print("cache sizes ok on %s: %d nodes, CPU caches %r"
          % (target, len(doc["nodes"]), sorted(cpu_expected)))


if __name__ == "__main__":
    main()
