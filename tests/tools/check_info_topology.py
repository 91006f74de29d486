"""Runs `hsakmt-info --json --check --sim TARGET` and checks what it printed
against sources that do not go through the library:

  - the simulator's own description of the board (the --check report:
    node count, each GPU's gpu_id, render minor, gfx target, device id, DRM
    family, APU flag, CU count and VRAM size);
  - for a captured tree (TARGET is a directory), the tree's files: the node
    count, system_properties, every node's properties (identity, counts,
    sizes, clocks), gpu_id files, and each memory bank, cache and io link
    file that exists (values, order, counts). Where the report says the
    simulator's loader corrected a properties value ("nodes/N: key OLD;
    served NEW"), the served value is expected instead of the file's.

  python3 check_info_topology.py HSAKMT_INFO TARGET

Prints one line per violation and exits 1 if there is any; else one summary
line. The JSON schema is checked first (check_info_json.validate)."""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_info_json  # noqa: E402

APERTURES = {"GPU_LDS", "GPU_SCRATCH", "DEVICE_SVM", "MMIO_REMAP"}


class Checker:
    def __init__(self):
        self.errors = []
        self.checks = 0

    def eq(self, what, got, want):
        self.checks += 1
        if got != want:
            self.errors.append("%s: hsakmt-info says %r, expected %r" % (what, got, want))

    def true(self, what, cond):
        self.checks += 1
        if not cond:
            self.errors.append(what)


def read_props(path):
    """A sysfs properties file as {key: int}; None when absent."""
    if not os.path.isfile(path):
        return None
    out = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2 and parts[1].lstrip("-").isdigit():
                out[parts[0]] = int(parts[1])
    return out


def read_int(path):
    if not os.path.isfile(path):
        return None
    with open(path) as f:
        return int(f.read().split()[0])


def gfx_name(v):
    return "gfx%d%x%x" % (v // 10000, (v // 100) % 100, v % 100)


REPORT_BOARD = re.compile(r"^board .*: KFD (\d+)\.(\d+), (\d+) nodes, (\d+) GPUs, (\d+) CPUs$")
REPORT_GPU = re.compile(
    r"^  node (\d+): GPU gpu_id (\d+) renderD(\d+) (gfx\w+) \((\d+)\) device 0x([0-9a-f]+) "
    r"rev 0x([0-9a-f]+) family (\d+) (APU|dGPU), (\d+) CUs, VRAM (\d+) MiB$")
REPORT_CPU = re.compile(r"^  node (\d+): CPU$")


def check_report(c, doc):
    """Against the simulator's description of the board it serves."""
    lines = doc["check"].splitlines()
    m = REPORT_BOARD.match(lines[0]) if lines else None
    c.true("the --check report has no board line: %r" % (lines[:1],), m is not None)
    if m is None:
        return
    nodes = doc["nodes"]
    c.eq("KFD version", (doc["kfd_version"]["major"], doc["kfd_version"]["minor"]),
         (int(m.group(1)), int(m.group(2))))
    c.eq("node count", len(nodes), int(m.group(3)))
    c.eq("GPU count", sum(1 for n in nodes if n["type"] == "GPU"), int(m.group(4)))
    seen = set()
    for line in lines[1:]:
        g = REPORT_GPU.match(line)
        if g:
            i = int(g.group(1))
            seen.add(i)
            if i >= len(nodes):
                c.true("report names node %d of %d" % (i, len(nodes)), False)
                continue
            n = nodes[i]
            w = "node %d" % i
            c.eq(w + " type", n["type"], "GPU")
            c.eq(w + " gpu_id", n["gpu_id"], int(g.group(2)))
            c.eq(w + " render minor", n["render_minor"], int(g.group(3)))
            c.eq(w + " gfx", n["gfx"], g.group(4))
            c.eq(w + " device id", n["device_id"], int(g.group(6), 16) & 0xFFFF)
            c.eq(w + " family id (DRM DEV_INFO)", n["family_id"], int(g.group(8)))
            c.eq(w + " integrated", n["integrated"], g.group(9) == "APU")
            c.eq(w + " compute units", n["compute_units"], int(g.group(10)))
            vram = sum(b["size"] for b in n["mem_banks"]
                       if b["heap_type"] in ("FRAME_BUFFER_PUBLIC", "FRAME_BUFFER_PRIVATE"))
            c.eq(w + " VRAM bytes (frame-buffer banks)", vram, int(g.group(11)) << 20)
            continue
        p = REPORT_CPU.match(line)
        if p:
            i = int(p.group(1))
            seen.add(i)
            if i < len(nodes):
                c.eq("node %d type" % i, nodes[i]["type"], "CPU")
    c.eq("nodes described by the report", sorted(seen), list(range(len(nodes))))


FILL_IN_VALUE = re.compile(r"^  nodes/(\d+): (\w+) (\d+); served (\d+)\b")


def corrections(doc):
    """{(node, key): value} for the properties values the simulator's loader
    corrected (its report: "nodes/N: key OLD; served NEW ..."): there the
    tree's file is not what the library was served."""
    out = {}
    for line in doc["check"].splitlines():
        m = FILL_IN_VALUE.match(line)
        if m:
            out[(int(m.group(1)), m.group(2))] = int(m.group(4))
    return out


def check_tree(c, doc, tree):
    """Against the captured tree's own files (with the loader's corrections)."""
    fixed = corrections(doc)
    nodes_dir = os.path.join(tree, "nodes")
    sysfs = sorted(int(e) for e in os.listdir(nodes_dir) if e.isdigit())
    nodes = doc["nodes"]
    c.eq("node count (entries of nodes/)", len(nodes), len(sysfs))
    sp = read_props(os.path.join(tree, "system_properties"))
    if sp is not None:
        for key in ("platform_oem", "platform_id", "platform_rev"):
            c.eq("system " + key, doc["system"][key], sp.get(key, 0) & 0xFFFFFFFF)
    for i in sysfs:
        if i >= len(nodes):
            break
        n = nodes[i]
        d = os.path.join(nodes_dir, str(i))
        w = "node %d" % i
        p = read_props(os.path.join(d, "properties"))
        c.true(w + ": the tree has no properties file", p is not None)
        if p is None:
            continue
        for (node, key), value in fixed.items():
            if node == i:
                p[key] = value
        c.eq(w + " cpu_cores", n["cpu_cores"], p.get("cpu_cores_count", 0))
        c.eq(w + " simd_count", n["simd_count"], p.get("simd_count", 0))
        gpu = p.get("simd_count", 0) > 0
        c.eq(w + " type", n["type"], "GPU" if gpu else "CPU")
        gpu_id = read_int(os.path.join(d, "gpu_id"))
        if gpu_id is not None:
            c.eq(w + " gpu_id (the gpu_id file)", n["gpu_id"], gpu_id)
        if gpu:
            c.eq(w + " vendor id", n["vendor_id"], p.get("vendor_id", 0) & 0xFFFF)
            c.eq(w + " device id", n["device_id"], p.get("device_id", 0) & 0xFFFF)
            c.eq(w + " location id", n["location_id"], p.get("location_id", 0))
            c.eq(w + " domain", n["domain"], p.get("domain", 0))
            c.eq(w + " wavefront size", n["wavefront_size"], p.get("wave_front_size", 0))
            c.eq(w + " max waves per SIMD", n["max_waves_per_simd"], p.get("max_waves_per_simd", 0))
            c.eq(w + " LDS KiB", n["lds_size_kb"], p.get("lds_size_in_kb", 0))
            c.eq(w + " SIMDs per CU", n["simds_per_cu"], p.get("simd_per_cu", 0))
            if p.get("simd_per_cu", 0):
                c.eq(w + " compute units", n["compute_units"], p["simd_count"] // p["simd_per_cu"])
            c.eq(w + " XCCs", n["num_xcc"], p.get("num_xcc", 0) or 1)
            c.eq(w + " max engine clock", n["max_engine_clock_mhz"],
                 p.get("max_engine_clk_fcompute", 0))
            c.eq(w + " local memory", n["local_mem_size"], p.get("local_mem_size", 0))
            c.eq(w + " hive id", n["hive_id"], p.get("hive_id", 0))
            c.eq(w + " unique id", n["unique_id"], p.get("unique_id", 0))
            if p.get("gfx_target_version", 0):
                c.eq(w + " gfx target", n["gfx"], gfx_name(p["gfx_target_version"]))
            if p.get("drm_render_minor", 0):
                c.eq(w + " render minor", n["render_minor"], p["drm_render_minor"])
        else:
            c.eq(w + " max engine clock (CPU)", n["max_engine_clock_mhz"],
                 p.get("max_engine_clk_ccompute", 0))

        # Memory banks: the tree's, in order; a GPU's apertures after them.
        banks = n["mem_banks"]
        count = p.get("mem_banks_count", 0)
        if os.path.isdir(os.path.join(d, "mem_banks")):
            sysfs_banks = [b for b in banks if b["heap_type"] not in APERTURES]
            c.eq(w + " memory banks from sysfs", len(sysfs_banks), count)
            for j in range(count):
                bp = read_props(os.path.join(d, "mem_banks", str(j), "properties"))
                if bp is None or j >= len(banks):
                    continue
                bw = "%s bank %d" % (w, j)
                c.eq(bw + " heap type", banks[j]["heap_type_id"], bp.get("heap_type", 0))
                c.eq(bw + " size", banks[j]["size"], bp.get("size_in_bytes", 0))
                c.eq(bw + " width", banks[j]["width"], bp.get("width", 0))
                c.eq(bw + " clock", banks[j]["mem_clock_max_mhz"], bp.get("mem_clk_max", 0))
        apertures = [b for b in banks if b["heap_type"] in APERTURES]
        if gpu:
            lds = [b for b in apertures if b["heap_type"] == "GPU_LDS"]
            c.eq(w + " LDS aperture banks", len(lds), 1)
            if lds:
                c.eq(w + " LDS bank size", lds[0]["size"], p.get("lds_size_in_kb", 0) * 1024)
            c.eq(w + " scratch aperture banks",
                 sum(1 for b in apertures if b["heap_type"] == "GPU_SCRATCH"), 1)
            c.true(w + ": an aperture bank without a base address",
                   all(b["virtual_base"] != 0 for b in apertures))
            c.true(w + ": aperture banks are not after the sysfs banks",
                   [b["heap_type"] in APERTURES for b in banks] ==
                   sorted(b["heap_type"] in APERTURES for b in banks))
        else:
            c.eq(w + " aperture banks on a CPU node", len(apertures), 0)

        # Caches: where the tree has them, the same values in the same order.
        if os.path.isdir(os.path.join(d, "caches")):
            c.eq(w + " cache count", len(n["caches"]), p.get("caches_count", 0))
            for j, cache in enumerate(n["caches"]):
                cp = read_props(os.path.join(d, "caches", str(j), "properties"))
                if cp is None:
                    continue
                cw = "%s cache %d" % (w, j)
                c.eq(cw + " level", cache["level"], cp.get("level", 0))
                # The KFD's cache files give KiB; the JSON gives bytes.
                c.eq(cw + " size", cache["size"], cp.get("size", 0) * 1024)
                c.eq(cw + " line size", cache["line_size"], cp.get("cache_line_size", 0))
                c.eq(cw + " type", cache["type_bits"], cp.get("type", 0))
                c.eq(cw + " processor_id_low", cache["processor_id_low"],
                     cp.get("processor_id_low", 0))

        # IO links: io_links then p2p_links, with the tree's values.
        links = n["io_links"]
        c.eq(w + " io link count", len(links),
             p.get("io_links_count", 0) + p.get("p2p_links_count", 0))
        files = [os.path.join(d, "io_links", str(j), "properties")
                 for j in range(p.get("io_links_count", 0))]
        files += [os.path.join(d, "p2p_links", str(j), "properties")
                  for j in range(p.get("p2p_links_count", 0))]
        for j, path in enumerate(files):
            lp = read_props(path)
            if lp is None or j >= len(links):
                continue
            lw = "%s link %d (%s)" % (w, j, os.path.relpath(path, d))
            link = links[j]
            c.eq(lw + " type", link["type_id"], lp.get("type", 0))
            c.eq(lw + " to", link["to"], lp.get("node_to", 0))
            c.eq(lw + " weight", link["weight"], lp.get("weight", 0))
            c.eq(lw + " min bandwidth", link["min_bandwidth"], lp.get("min_bandwidth", 0))
            c.eq(lw + " max bandwidth", link["max_bandwidth"], lp.get("max_bandwidth", 0))
            c.eq(lw + " min latency", link["min_latency"], lp.get("min_latency", 0))
            c.eq(lw + " max latency", link["max_latency"], lp.get("max_latency", 0))

    renders = [n["render_minor"] for n in nodes if n["type"] == "GPU"]
    c.eq("render minors unique", len(set(renders)), len(renders))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check_info_topology.py HSAKMT_INFO BOARD|TREE")
    exe, target = sys.argv[1], sys.argv[2]
    run = subprocess.run([exe, "--json", "--check", "--sim", target], capture_output=True,
                         text=True)
    label = os.path.basename(target.rstrip("/"))
    if run.returncode != 0:
        print("%s: hsakmt-info exited %d: %s" % (label, run.returncode, run.stderr.strip()))
        sys.exit(1)
    try:
        doc = json.loads(run.stdout)
        check_info_json.validate(doc)
    except (ValueError, check_info_json.SchemaError) as e:
        print("%s: hsakmt-info --json: %s" % (label, e))
        sys.exit(1)
    c = Checker()
    c.eq("source", doc["source"],
         ("sim-tree:" if os.path.isdir(target) else "sim-board:") + target)
    check_report(c, doc)
    if os.path.isdir(target):
        check_tree(c, doc, target)
    for e in c.errors:
        print("%s: %s" % (label, e))
    if c.errors:
        sys.exit(1)
    print("%s: %d nodes, %d checks passed" % (label, len(doc["nodes"]), c.checks))


if __name__ == "__main__":
    main()
