#!/usr/bin/env python3
"""hsakmt-info --smoke --json on one board or tree: every GPU node ran the SDMA
round trip (ok, 1 MiB verified, no error) and the exit status is 0.

    check_info_smoke.py <hsakmt-info> <board-or-tree>
"""
import json
import subprocess
import sys


def main():
    info, target = sys.argv[1], sys.argv[2]
    p = subprocess.run([info, "--json", "--smoke", "--sim", target], capture_output=True,
                       text=True, timeout=120)
    if p.returncode != 0:
        sys.exit(f"FAIL: exit {p.returncode}: {p.stderr.strip()}")
    doc = json.loads(p.stdout)
    gpus = [n for n in doc["nodes"] if n["simd_count"] > 0]
    smoke = doc.get("smoke")
    if smoke is None:
        sys.exit("FAIL: no 'smoke' member in the JSON")
    if sorted(r["node"] for r in smoke) != sorted(n["node"] for n in gpus) or not gpus:
        sys.exit(f"FAIL: smoke ran on {[r['node'] for r in smoke]}, GPU nodes are "
                 f"{[n['node'] for n in gpus]}")
    for r in smoke:
        if not r["ok"] or r["bytes"] != 1 << 20 or r["error"] is not None:
            sys.exit(f"FAIL: node {r['node']}: {r}")
    print(f"smoke ok on {len(smoke)} GPU node(s) of {target}")


if __name__ == "__main__":
    main()
