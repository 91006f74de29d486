"""`hsakmt-info --check --sim TREE` on a capture shaped like a 2018 kernel's.

Copies the captured fixture FIXTURE into a scratch directory without the
node keys later kernels added (gfx_target_version, the SDMA/CP/GWS/XCC
counts, domain, hive/unique ids, ...), with empty `name` files and no
p2p_links, then runs hsakmt-info on the copy and checks that:

  - it loads, and every GPU node shows the GFX target the full capture gives;
  - the --check report names what the simulator derived for each GPU node:
    the version from the device table, the SDMA engines from the family.

  python3 check_info_old_kernel.py HSAKMT_INFO FIXTURE

The copy is removed afterwards; fixtures are read in place."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

NEWER_NODE_KEYS = {
    "gfx_target_version", "num_sdma_engines", "num_sdma_xgmi_engines",
    "num_sdma_queues_per_engine", "num_cp_queues", "num_gws", "num_xcc", "unique_id", "domain",
    "debug_prop", "sdma_fw_version", "hive_id", "family_id", "cwsr_size", "ctl_stack_size",
    "capability2", "p2p_links_count"}

GPU_LINE = re.compile(r"^\s*node (\d+) +GPU .*?(gfx[0-9a-f]+)", re.M)


def strip_copy(src, dst):
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        dirs[:] = [d for d in dirs if d != "p2p_links"]
        os.makedirs(os.path.join(dst, rel), exist_ok=True)
        parts = rel.split(os.sep)
        node_dir = len(parts) == 2 and parts[0] == "nodes"
        for name in files:
            if name == "SOURCE.md":
                continue
            with open(os.path.join(root, name)) as f:
                text = f.read()
            if node_dir and name == "name":
                text = ""
            elif node_dir and name == "properties":
                text = "".join(l for l in text.splitlines(True)
                               if l.split(" ")[0] not in NEWER_NODE_KEYS)
            with open(os.path.join(dst, rel, name), "w") as f:
                f.write(text)


def run(exe, target):
    r = subprocess.run([exe, "--check", "--sim", target], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("hsakmt-info exited %d on %s: %s" % (r.returncode, target, r.stderr.strip()))
    return r.stdout


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check_info_old_kernel.py HSAKMT_INFO FIXTURE")
    exe, fixture = sys.argv[1], sys.argv[2]
    errors = []
    full = dict(GPU_LINE.findall(run(exe, fixture)))
    if not full:
        sys.exit("no GPU node in hsakmt-info's output for %s" % fixture)
    tmp = tempfile.mkdtemp(prefix="hke-oldkfd-")
    try:
        strip_copy(fixture, tmp)
        out = run(exe, tmp)
        old = dict(GPU_LINE.findall(out))
        if old != full:
            errors.append("GPU targets differ: full capture %s, old-kernel copy %s" % (full, old))
        for node in full:
            for needle in (r"nodes/%s: gfx_target_version missing; served \d+ \(device_id 0x[0-9a-f]+"
                           r" is [^)]+ in the device table\)" % node,
                           r"nodes/%s: num_sdma_engines missing; the simulated GPU has \d+ SDMA "
                           r"engines" % node):
                if not re.search(needle, out):
                    errors.append("the --check report does not name: %s" % needle)
    finally:
        shutil.rmtree(tmp)
    for e in errors:
        print(e)
    if errors:
        sys.exit(1)
    print("%s: %d GPU nodes, same targets, derivations named" % (os.path.basename(fixture),
                                                                len(full)))


if __name__ == "__main__":
    main()
