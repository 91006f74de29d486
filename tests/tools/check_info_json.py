"""Validates `hsakmt-info --json` output read from stdin against the schema
documented in tools/hsakmt-info/README.md. Exits nonzero with a message
naming the first violation."""
import json
import sys

SCHEMA = {
    "source": str,
    "configuration": str,
    "context_bytes": int,
    "kfd_version": dict,
    "topology_api": str,
    "nodes": list,
}
NODE = {"node": int, "gpu_id": int, "name": str, "cpu_cores": int, "simd_count": int}


def fail(msg):
    print("hsakmt-info --json: " + msg)
    sys.exit(1)


doc = json.load(sys.stdin)
if not isinstance(doc, dict):
    fail("top level is not an object")
for key, kind in SCHEMA.items():
    if key not in doc:
        fail("missing key " + key)
    if not isinstance(doc[key], kind):
        fail("key %s is not %s" % (key, kind.__name__))
for k in ("major", "minor"):
    if not isinstance(doc["kfd_version"].get(k), int):
        fail("kfd_version.%s is not an integer" % k)
if doc["kfd_version"]["major"] != 1:
    fail("kfd_version.major is not 1")
if doc["topology_api"] not in ("implemented", "not_implemented"):
    fail("topology_api has an unknown value")
if doc["configuration"] not in ("default", "small-board"):
    fail("configuration has an unknown value")
ids = []
for n in doc["nodes"]:
    for key, kind in NODE.items():
        if not isinstance(n.get(key), kind):
            fail("node entry lacks %s of type %s: %r" % (key, kind.__name__, n))
    gfx = n.get("gfx")
    if n["simd_count"] > 0:
        if not (isinstance(gfx, str) and gfx.startswith("gfx")):
            fail("GPU node %d has no gfx name" % n["node"])
        if n["gpu_id"] == 0:
            fail("GPU node %d has gpu_id 0" % n["node"])
    elif gfx is not None:
        fail("CPU node %d has a gfx name" % n["node"])
    ids.append(n["node"])
if ids != list(range(len(ids))):
    fail("nodes are not numbered 0..N-1: %r" % ids)
if not doc["source"].startswith(("linux:", "sim-board:", "sim-tree:")):
    fail("source has an unknown form")
print("hsakmt-info --json: %d nodes, schema ok" % len(ids))
