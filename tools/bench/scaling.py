#!/usr/bin/env python3
"""worst-case (issue 21, goal 2): per-call numbers against live allocations.

  scaling.py callgrind --file CG.OUT --target T --case C --library L --out worst-instructions.jsonl
      reads one callgrind run of a worst-case variant made with
      --toggle-collect=hke_bench_call_* and --dump-after=hke_bench_call_<op>
      for every op (--combine-dumps=yes: one part per call) and appends, per
      operation, the instructions per call: median and maximum, all of them
      and without the simulator's (functions in libkfdsim-preload.so).

  scaling.py render --records records.jsonl [--instructions worst-instructions.jsonl]
                    --png scaling.png [--md-append results.md]
      prints (and appends to results.md) the per-call table of every
      worst-case variant and draws the scaling curves: per operation, time
      per call (median, p99, max) and the maximum library instructions per
      call against live allocations (log x), ours and Debian, both VA modes.
"""
import argparse
import json
import re
import statistics
import sys
from collections import defaultdict

OPS = ("alloc", "free", "map", "unmap", "query")
OP_TITLES = {"alloc": "hsaKmtAllocMemory", "free": "hsaKmtFreeMemory",
             "map": "hsaKmtMapMemoryToGPU", "unmap": "hsaKmtUnmapMemoryToGPU",
             "query": "hsaKmtQueryPointerInfo"}
MODES = ("kernel", "reserved")
LIBS = ("ours", "debian")
FAMILY = "worst-case/"


def load_jsonl(path):
    rows = []
    if path:
        with open(path) as f:
            rows = [json.loads(line) for line in f if line.strip()]
    return rows


# ---- callgrind -----------------------------------------------------------------

def parse_parts(path):
    """Yields (op, instructions, simulator instructions) per dumped call."""
    obs = {}           # compressed ob id -> object name
    ob = ""            # object of the current function
    op = None
    total = None
    sim = 0
    skip_next = False
    with open(path) as f:
        for line in f:
            if line.startswith("part:"):
                if op is not None and total is not None:
                    yield op, total, sim
                op, total, sim, skip_next = None, None, 0, False
                continue
            if line.startswith("desc: Trigger:"):
                m = re.search(r"--dump-after=hke_bench_call_(\w+)", line)
                op = m.group(1) if m else None
                continue
            if line.startswith("summary:"):
                total = int(line.split()[1])
                continue
            if line.startswith("ob="):
                m = re.match(r"ob=(?:\((\d+)\))?\s*(.*)$", line.rstrip("\n"))
                ident, name = m.group(1), m.group(2)
                if ident is not None and name:
                    obs[ident] = name
                ob = obs.get(ident, name) if ident is not None else name
                continue
            if line.startswith("cob="):
                # Names are numbered file-wide: an object first named in a
                # cob= line is later referred to by its number alone.
                m = re.match(r"cob=\((\d+)\)\s*(.+)$", line.rstrip("\n"))
                if m:
                    obs[m.group(1)] = m.group(2)
                continue
            if line.startswith("calls="):
                skip_next = True  # the next cost line is the call's inclusive cost
                continue
            if line[:1].isdigit() or line[:1] in "+-*":
                if skip_next:
                    skip_next = False
                    continue
                parts = line.split()
                if len(parts) >= 2 and "kfdsim-preload" in ob:
                    sim += int(parts[1])
    if op is not None and total is not None:
        yield op, total, sim


def callgrind(args):
    per_op = defaultdict(list)
    for op, total, sim in parse_parts(args.file):
        per_op[op].append((total, sim))
    if not per_op:
        sys.exit("scaling.py: no per-call dumps in %s" % args.file)
    rec = {"target": args.target, "case": args.case, "library": args.library, "ops": {}}
    for op, calls in per_op.items():
        lib = [t - s for t, s in calls]
        total = [t for t, _ in calls]
        rec["ops"][op] = {"n": len(calls),
                          "median_ir": statistics.median(total), "max_ir": max(total),
                          "median_ir_lib": statistics.median(lib), "max_ir_lib": max(lib),
                          "max_ir_sim": max(s for _, s in calls)}
    with open(args.out, "a") as f:
        f.write(json.dumps(rec) + "\n")


# ---- rendering -------------------------------------------------------------------

def variant(case):
    """'worst-case/kernel-1000' -> ('kernel', 1000)."""
    mode, live = case[len(FAMILY):].rsplit("-", 1)
    return mode, int(live)


def fmt_time(ns):
    if ns is None:
        return "—"
    if ns >= 1e6:
        return "%.2f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.1f µs" % (ns / 1e3)
    return "%.0f ns" % ns


def fmt_ir(v):
    if v is None:
        return "—"
    return "%.1fk" % (v / 1e3) if v >= 1e4 else "%d" % v


def collect(records, instr):
    """{(target, mode, lib, op): {live: {time stats + instructions}}}."""
    data = defaultdict(dict)
    states = {}
    for r in records:
        if not r["case"].startswith(FAMILY):
            continue
        mode, live = variant(r["case"])
        if r["state"] != "ok":
            # Skipped or failed: the state in the table, the reason in results.md's details.
            states[(r["target"], mode, r["library"], live)] = r["state"]
            continue
        for op, c in r.get("calls", {}).items():
            data[(r["target"], mode, r["library"], op)][live] = dict(c)
    for x in instr:
        if not x["case"].startswith(FAMILY):
            continue
        mode, live = variant(x["case"])
        for op, c in x["ops"].items():
            d = data[(x["target"], mode, x["library"], op)].setdefault(live, {})
            d["median_ir_lib"] = c["median_ir_lib"]
            d["max_ir_lib"] = c["max_ir_lib"]
            d["max_ir"] = c["max_ir"]
    return data, states


def table(data, states, targets):
    out = []
    for t in targets:
        out.append("### worst-case on %s\n" % t)
        out.append("Per call: median / p99 / p99.9 / max wall time; max (median) instructions "
                   "per call without the simulator's. Growth = ours at the largest count over "
                   "ours at 100 (goal: ≤ 1.5× for every column); instructions are counted up "
                   "to 10^4 live allocations (valgrind cannot run 10^5: VG_N_SEGMENTS).\n")
        out.append("| op | mode | live | ours time | Debian time | ours instr | Debian instr |")
        out.append("|---|---|---:|---|---|---:|---:|")
        for op in OPS:
            for mode in MODES:
                lives = sorted(set(data.get((t, mode, "ours", op), {})) |
                               set(data.get((t, mode, "debian", op), {})))
                for live in lives:
                    cells = []
                    for lib in LIBS:
                        c = data.get((t, mode, lib, op), {}).get(live)
                        if c is None or "median_ns" not in c:
                            cells.append(states.get((t, mode, lib, live), "—"))
                        else:
                            cells.append(" / ".join(fmt_time(c[k]) for k in
                                                    ("median_ns", "p99_ns", "p999_ns", "max_ns")))
                    for lib in LIBS:
                        c = data.get((t, mode, lib, op), {}).get(live, {})
                        cells.append("%s (%s)" % (fmt_ir(c.get("max_ir_lib")),
                                                  fmt_ir(c.get("median_ir_lib")))
                                     if "max_ir_lib" in c else "—")
                    out.append("| %s | %s | %d | %s |" % (op, mode, live, " | ".join(cells)))
                growth = growth_row(data.get((t, mode, "ours", op), {}))
                if growth:
                    out.append("| %s | %s | **ours growth** | %s | | %s | |" % (op, mode, growth[0],
                                                                        growth[1]))
        out.append("")
    return "\n".join(out)


def growth_row(series):
    """Ours at the largest live count over ours at the smallest, per column."""
    lives = sorted(l for l in series if "median_ns" in series[l])
    if len(lives) < 2:
        return None
    lo, hi = series[lives[0]], series[lives[-1]]
    t = " / ".join("%.2f×" % (hi[k] / lo[k]) if lo.get(k) else "—"
                   for k in ("median_ns", "p99_ns", "p999_ns", "max_ns"))
    # Instructions: the largest count callgrind could run (10^4) over the smallest.
    il = sorted(l for l in series if "max_ir_lib" in series[l])
    i = ("%.2f× (at %d)" % (series[il[-1]]["max_ir_lib"] / series[il[0]]["max_ir_lib"], il[-1])
         if len(il) >= 2 and series[il[0]]["max_ir_lib"] else "—")
    return t, i


def plot(data, targets, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # A row of time panels per target, and below it a row of instruction
    # panels only for the targets callgrind counted (run.sh counts the
    # built-in boards by default), so no panel is empty.
    counted = {t for (t, _, _, _), s in data.items() if any("max_ir_lib" in v for v in s.values())}
    layout = []  # (target, has instruction row, first row index)
    rows = 0
    for t in targets:
        layout.append((t, t in counted, rows))
        rows += 2 if t in counted else 1
    fig, axes = plt.subplots(rows, len(OPS), figsize=(4.2 * len(OPS), 3.4 * rows), squeeze=False)
    colors = {"ours": "tab:blue", "debian": "tab:red"}
    styles = {"kernel": "-", "reserved": "--"}
    for t, has_instr, row in layout:
        for oi, op in enumerate(OPS):
            ax_t = axes[row][oi]
            ax_i = axes[row + 1][oi] if has_instr else None
            for lib in LIBS:
                for mode in MODES:
                    s = data.get((t, mode, lib, op), {})
                    lives = sorted(l for l in s if "median_ns" in s[l])
                    label = "%s %s" % (lib, mode)
                    for key, marker, alpha in (("median_ns", "o", 1.0), ("p99_ns", "^", 0.6),
                                               ("max_ns", "x", 0.35)):
                        if lives:
                            ax_t.plot(lives, [s[l][key] / 1e3 for l in lives], styles[mode],
                                      marker=marker, color=colors[lib], alpha=alpha,
                                      label="%s %s" % (label, key[:-3]) if oi == 0 else None)
                    il = sorted(l for l in s if "max_ir_lib" in s[l])
                    if il and ax_i is not None:
                        ax_i.plot(il, [s[l]["max_ir_lib"] for l in il], styles[mode], marker="o",
                                  color=colors[lib], label=label if oi == 0 else None)
            for ax in (ax_t, ax_i):
                if ax is None:
                    continue
                ax.set_xscale("log")
                ax.set_yscale("log")
                ax.grid(True, which="both", alpha=0.3)
            ax_t.set_title("%s\n%s: time per call" % (t, OP_TITLES[op]), fontsize=9)
            ax_t.set_ylabel("µs")
            if ax_i is not None:
                ax_i.set_title("%s: max instructions per call" % OP_TITLES[op], fontsize=9)
                ax_i.set_xlabel("live allocations")
            else:
                ax_t.set_xlabel("live allocations")
            if oi == 0:
                ax_t.legend(fontsize=6)
                if ax_i is not None:
                    ax_i.legend(fontsize=6)
    fig.suptitle("worst-case: per-call time (median o, p99 ^, max x) and maximum instructions "
                 "(simulator's subtracted) against live allocations; solid = kernel-placed VA, "
                 "dashed = reserved SVM", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(png, dpi=80)


def render(args):
    records = load_jsonl(args.records)
    instr = load_jsonl(args.instructions)
    data, states = collect(records, instr)
    targets = sorted({k[0] for k in data} | {k[0] for k in states})
    if not targets:
        print("scaling.py: no worst-case records", file=sys.stderr)
        return 0
    md = "\n## worst-case: per-call scaling (issue 21, goal 2)\n\n" + table(data, states, targets)
    print(md)
    if args.md_append:
        with open(args.md_append, "a") as f:
            f.write(md + "\n\n![scaling](scaling.png)\n")
    if args.png:
        try:
            plot(data, targets, args.png)
        except ImportError:
            print("scaling.py: no matplotlib, no plot", file=sys.stderr)
            return 3
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("callgrind")
    c.add_argument("--file", required=True)
    c.add_argument("--target", required=True)
    c.add_argument("--case", required=True)
    c.add_argument("--library", required=True)
    c.add_argument("--out", required=True)
    r = sub.add_parser("render")
    r.add_argument("--records", required=True)
    r.add_argument("--instructions")
    r.add_argument("--png")
    r.add_argument("--md-append")
    args = p.parse_args()
    if args.cmd == "callgrind":
        callgrind(args)
        return 0
    return render(args)


if __name__ == "__main__":
    sys.exit(main())
