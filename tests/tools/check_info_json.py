"""Validates `hsakmt-info --json` output against the schema documented in
tools/hsakmt-info/README.md.

  python3 check_info_json.py < output.json

exits nonzero with a message naming the first violation. Other scripts
import it and call validate(doc), which raises SchemaError."""
import json
import sys


class SchemaError(Exception):
    pass


TOP = {
    "source": str,
    "configuration": str,
    "context_bytes": int,
    "kfd_version": dict,
    "topology_api": str,
    "system": dict,
    "nodes": list,
}
SYSTEM = {"nodes": int, "platform_oem": int, "platform_id": int, "platform_rev": int}
NODE = {
    "node": int, "type": str, "gpu_id": int, "name": str, "marketing_name": str,
    "amd_name": str, "cpu_cores": int, "simd_count": int, "render_minor": int,
    "location_id": int, "domain": int, "vendor_id": int, "device_id": int, "family_id": int,
    "integrated": bool, "num_xcc": int, "compute_units": int, "simds_per_cu": int,
    "shader_engines": int, "arrays_per_engine": int, "cus_per_array": int,
    "wavefront_size": int, "max_waves_per_simd": int, "max_engine_clock_mhz": int,
    "local_mem_size": int, "lds_size_kb": int, "hive_id": int, "unique_id": int,
    "mem_banks": list, "caches": list, "io_links": list,
}
HEAP_TYPES = {
    "SYSTEM": 0, "FRAME_BUFFER_PUBLIC": 1, "FRAME_BUFFER_PRIVATE": 2, "GPU_GDS": 3,
    "GPU_LDS": 4, "GPU_SCRATCH": 5, "DEVICE_SVM": 6, "MMIO_REMAP": 7,
}
BANK = {"heap_type": str, "heap_type_id": int, "size": int, "width": int,
        "mem_clock_max_mhz": int, "virtual_base": int}
CACHE = {"level": int, "type": list, "type_bits": int, "size": int, "line_size": int,
         "processor_id_low": int, "associativity": int, "latency": int}
CACHE_TYPE_BITS = {"data": 1, "instruction": 2, "cpu": 4, "hsacu": 8}
LINK = {"type": str, "type_id": int, "from": int, "to": int, "weight": int,
        "min_bandwidth": int, "max_bandwidth": int, "min_latency": int, "max_latency": int}


def require(cond, msg):
    if not cond:
        raise SchemaError(msg)


def check_keys(obj, spec, where):
    require(isinstance(obj, dict), "%s is not an object" % where)
    for key, kind in spec.items():
        require(key in obj, "%s lacks %s" % (where, key))
        value = obj[key]
        # bool is an int in Python: keep the two apart.
        ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
        require(ok, "%s.%s is not %s: %r" % (where, key, kind.__name__, value))
        if kind is int:
            require(value >= 0 or key == "render_minor", "%s.%s is negative" % (where, key))


def is_gfx_name(s):
    return isinstance(s, str) and s.startswith("gfx") and len(s) > 3


def validate(doc):
    """Checks one document; raises SchemaError naming the first violation."""
    check_keys(doc, TOP, "the document")
    for k in ("major", "minor"):
        require(isinstance(doc["kfd_version"].get(k), int), "kfd_version.%s is not an integer" % k)
    require(doc["kfd_version"]["major"] == 1, "kfd_version.major is not 1")
    require(doc["topology_api"] in ("implemented", "not_implemented"),
            "topology_api has an unknown value")
    require(doc["configuration"] in ("default", "small-board"), "configuration has an unknown value")
    require(doc["source"].startswith(("linux:", "sim-board:", "sim-tree:")),
            "source has an unknown form")
    check_keys(doc["system"], SYSTEM, "system")
    freq = doc["system"].get("timestamp_frequency_hz", "missing")
    require(freq is None or (isinstance(freq, int) and freq > 0),
            "system.timestamp_frequency_hz is neither null nor a positive integer")
    nodes = doc["nodes"]
    require(doc["system"]["nodes"] == len(nodes), "system.nodes is not the length of nodes")
    gpu_ids = []
    for i, n in enumerate(nodes):
        where = "nodes[%d]" % i
        check_keys(n, NODE, where)
        require(n["node"] == i, "nodes are not numbered 0..N-1 (%s is %r)" % (where, n["node"]))
        require(n["type"] in ("CPU", "GPU"), "%s.type is %r" % (where, n["type"]))
        gpu = n["type"] == "GPU"
        require(gpu == (n["simd_count"] > 0), "%s.type disagrees with simd_count" % where)
        for key in ("gfx", "gfx_override", "pci_address"):
            require(key in n, "%s lacks %s" % (where, key))
        if gpu:
            require(is_gfx_name(n["gfx"]), "GPU %s has no gfx name" % where)
            require(n["name"] == n["gfx"], "GPU %s is not named after its gfx target" % where)
            require(n["gpu_id"] != 0, "GPU %s has gpu_id 0" % where)
            require(n["gfx_override"] is None or is_gfx_name(n["gfx_override"]),
                    "%s.gfx_override is malformed" % where)
            require(isinstance(n["pci_address"], str), "GPU %s has no pci_address" % where)
            require(n["num_xcc"] >= 1, "GPU %s has num_xcc 0" % where)
            gpu_ids.append(n["gpu_id"])
        else:
            require(n["gfx"] is None and n["gfx_override"] is None,
                    "CPU %s has a gfx name" % where)
            require(n["gpu_id"] == 0, "CPU %s has a gpu_id" % where)
            require(n["pci_address"] is None, "CPU %s has a pci_address" % where)
        for j, b in enumerate(n["mem_banks"]):
            bw = "%s.mem_banks[%d]" % (where, j)
            check_keys(b, BANK, bw)
            require(HEAP_TYPES.get(b["heap_type"], -1) == b["heap_type_id"],
                    "%s: heap_type %r does not name heap_type_id %d" % (bw, b["heap_type"],
                                                                       b["heap_type_id"]))
        for j, c in enumerate(n["caches"]):
            cw = "%s.caches[%d]" % (where, j)
            check_keys(c, CACHE, cw)
            bits = 0
            for t in c["type"]:
                require(t in CACHE_TYPE_BITS, "%s.type has %r" % (cw, t))
                bits |= CACHE_TYPE_BITS[t]
            require(bits == (c["type_bits"] & 0xF), "%s.type disagrees with type_bits" % cw)
        for j, link in enumerate(n["io_links"]):
            lw = "%s.io_links[%d]" % (where, j)
            check_keys(link, LINK, lw)
            require(link["from"] == i, "%s does not start at its node" % lw)
            require(link["to"] < len(nodes), "%s names node %d of %d" % (lw, link["to"], len(nodes)))
    require(len(set(gpu_ids)) == len(gpu_ids), "gpu_ids are not unique: %r" % gpu_ids)
    if "check" in doc:
        require(isinstance(doc["check"], str), "check is not a string")


def main():
    try:
        doc = json.load(sys.stdin)
        validate(doc)
    except (ValueError, SchemaError) as e:
        print("hsakmt-info --json: %s" % e)
        sys.exit(1)
    print("hsakmt-info --json: %d nodes, schema ok" % len(doc["nodes"]))


if __name__ == "__main__":
    main()
