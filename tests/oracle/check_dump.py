#!/usr/bin/env python3
"""Checks that a props_dump output (tests/oracle/props_dump.c) is well formed.

    check_dump.py <dump.txt> [--board <kfdsim_board_gpus output>]
                  [--nodes N] [--gpus G]

Well formed means:
  - every line is `key=value` with a dotted key, and no key repeats;
  - status.open/version/acquire/release/close are all 0 and no per-node
    `.status` key (a failed Get*Properties call) is present;
  - the nodes printed are exactly 0..system.NumNodes-1;
  - every node prints the same set of node-level fields;
  - for every node, mem/cache/link entries are numbered exactly
    0..NumMemoryBanks-1 / NumCaches-1 / NumIOLinks-1, and every entry of one
    kind prints the same set of fields;
  - every I/O link starts at its own node and ends at an existing one.
With --board (the `board`/`gpu` lines of kfdsim_board_gpus), NumNodes must
equal the board's node count and the GPU nodes (NumFComputeCores > 0) must be
exactly the board's GPU nodes. --nodes/--gpus check the two counts directly.
Exit status: 0 well formed, 1 not (every problem is printed), 2 usage.
"""
import argparse
import re
import sys

KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+$")
STATUS_KEYS = ("status.open", "status.version", "status.acquire", "status.release", "status.close")
REQUIRED_NODE_FIELDS = ("NumCPUCores", "NumFComputeCores", "NumMemoryBanks", "NumCaches",
                        "NumIOLinks", "DrmRenderMinor", "DeviceId", "EngineId")
KINDS = {"mem": "NumMemoryBanks", "cache": "NumCaches", "link": "NumIOLinks"}
REQUIRED_ENTRY_FIELDS = {"mem": ("HeapType", "SizeInBytes", "Flags"),
                         "cache": ("CacheLevel", "CacheSize", "CacheType", "SiblingMap"),
                         "link": ("IoLinkType", "NodeFrom", "NodeTo", "Weight")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dump")
    ap.add_argument("--board")
    ap.add_argument("--nodes", type=int)
    ap.add_argument("--gpus", type=int)
    args = ap.parse_args()

    errors = []
    kv = {}
    with open(args.dump, encoding="ascii", errors="replace") as f:
        for number, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            key, sep, value = line.partition("=")
            if not sep or not KEY.match(key):
                errors.append(f"line {number}: not key=value: {line!r}")
                continue
            if key in kv:
                errors.append(f"line {number}: duplicate key {key}")
            kv[key] = value

    def uint(key):
        v = kv.get(key)
        if v is None or not v.isdigit():
            errors.append(f"{key}: missing or not an unsigned number ({v!r})")
            return None
        return int(v)

    for key in STATUS_KEYS:
        if kv.get(key) != "0":
            errors.append(f"{key}={kv.get(key)!r}, expected 0")
    if not re.fullmatch(r"\d+\.\d+", kv.get("kfd.version", "")):
        errors.append(f"kfd.version={kv.get('kfd.version')!r} is not major.minor")
    num_nodes = uint("system.NumNodes")

    # node -> {field: value}; node -> kind -> index -> {field: value}
    nodes, entries = {}, {}
    for key, value in kv.items():
        parts = key.split(".")
        if parts[0] != "node":
            continue
        if not parts[1].isdigit():
            errors.append(f"{key}: node index is not a number")
            continue
        n = int(parts[1])
        if len(parts) == 3:
            nodes.setdefault(n, {})[parts[2]] = value
        elif len(parts) == 4 and parts[3] == "status":
            errors.append(f"{key}={value}: a Get{parts[2]}Properties call failed")
        elif len(parts) == 5 and parts[2] in KINDS and parts[3].isdigit():
            entries.setdefault(n, {}).setdefault(parts[2], {}).setdefault(int(parts[3]), {})[
                parts[4]] = value
        else:
            errors.append(f"{key}: unexpected key shape")

    if num_nodes is not None and sorted(nodes) != list(range(num_nodes)):
        errors.append(f"nodes printed {sorted(nodes)[:8]}... ({len(nodes)}), "
                      f"expected 0..{num_nodes - 1}")
    node_fields = set().union(*(set(f) for f in nodes.values())) if nodes else set()
    for field in REQUIRED_NODE_FIELDS:
        if field not in node_fields:
            errors.append(f"no node prints {field}")
    kind_fields = {k: set() for k in KINDS}
    for per_kind in entries.values():
        for kind, by_index in per_kind.items():
            for fields in by_index.values():
                kind_fields[kind] |= set(fields)
    for kind, fields in kind_fields.items():
        for field in REQUIRED_ENTRY_FIELDS[kind] if fields else ():
            if field not in fields:
                errors.append(f"no {kind} entry prints {field}")

    gpu_nodes = []
    for n in sorted(nodes):
        fields = nodes[n]
        missing = node_fields - set(fields)
        if missing:
            errors.append(f"node {n}: missing {sorted(missing)}")
        counts = {}
        for kind, count_field in KINDS.items():
            count = uint(f"node.{n}.{count_field}")
            counts[kind] = count
            printed = sorted(entries.get(n, {}).get(kind, {}))
            if count is not None and printed != list(range(count)):
                errors.append(f"node {n}: {count_field}={count} but {len(printed)} {kind} "
                              f"entries printed (indices {printed[:5]}...)")
            for i in printed:
                missing = kind_fields[kind] - set(entries[n][kind][i])
                if missing:
                    errors.append(f"node {n} {kind} {i}: missing {sorted(missing)}")
        for i, link in entries.get(n, {}).get("link", {}).items():
            if link.get("NodeFrom") != str(n):
                errors.append(f"node {n} link {i}: NodeFrom={link.get('NodeFrom')}")
            to = link.get("NodeTo", "")
            if not to.isdigit() or num_nodes is None or int(to) >= num_nodes:
                errors.append(f"node {n} link {i}: NodeTo={to!r} is not a node")
        if fields.get("NumFComputeCores", "0") not in ("", "0"):
            gpu_nodes.append(n)

    expect_nodes, expect_gpus = args.nodes, args.gpus
    if args.board:
        board_nodes, board_gpu_nodes = None, []
        with open(args.board, encoding="ascii") as f:
            for line in f:
                words = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
                if line.startswith("board "):
                    board_nodes = int(words["nodes"])
                elif line.startswith("gpu "):
                    board_gpu_nodes.append(int(words["node"]))
        if board_nodes is None:
            errors.append(f"{args.board}: no board line")
        elif num_nodes != board_nodes:
            errors.append(f"system.NumNodes={num_nodes}, the board has {board_nodes} nodes")
        if gpu_nodes != sorted(board_gpu_nodes):
            errors.append(f"GPU nodes {gpu_nodes} differ from the board's {sorted(board_gpu_nodes)}")
    if expect_nodes is not None and num_nodes != expect_nodes:
        errors.append(f"system.NumNodes={num_nodes}, expected {expect_nodes}")
    if expect_gpus is not None and len(gpu_nodes) != expect_gpus:
        errors.append(f"{len(gpu_nodes)} GPU nodes, expected {expect_gpus}")

    summary = (f"{args.dump}: {len(kv)} keys, {len(nodes)} nodes ({len(gpu_nodes)} GPU), "
               f"{len(node_fields)} node fields, entry fields "
               + ", ".join(f"{k}={len(v)}" for k, v in kind_fields.items()))
    if errors:
        for e in errors[:50]:
            print("FAIL:", e, file=sys.stderr)
        if len(errors) > 50:
            print(f"FAIL: ... and {len(errors) - 50} more", file=sys.stderr)
        print(summary, file=sys.stderr)
        return 1
    print("OK:", summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
