#!/usr/bin/env python3
"""Turns hke-bench records into results.md and results.png (tools/bench/run.sh).

  report.py callgrind --file CG.OUT --target T --case C --library L
                      --iterations N --out instructions.jsonl
      appends the instructions per timed iteration of one callgrind run
      (collection toggled on hke_bench_measured_<library>): all of them, and
      the simulator's inclusive share (everything the calls into
      libkfdsim-preload.so run, their libc included; per_call.py's split).
      The tables and the chart show the library's share: the difference.

  report.py syscalls --small A.txt --large B.txt --ioctls-small N --ioctls-large M
                     --front-end F --mix X --out simulator.jsonl
      appends the simulator's system calls per ioctl (total and per system
      call) from the `strace -f -c` summaries of two hke-sim-rate runs.

  report.py render --records records.jsonl [--instructions instructions.jsonl]
                   [--simulator simulator.jsonl]
                   --md results.md --png results.png [--meta KEY=VALUE ...]
      writes the Markdown report and the chart (one panel of Debian / ours
      time ratios per case and target, and one of instruction ratios when
      they were counted), prints the summary tables. Records of a case
      family this script does not know are tabled and charted like any
      other; a record without case, target, library or state is ignored.
      Without matplotlib the chart is skipped and the exit status is 3.
"""
import argparse
import json
import os
import math
import re
import sys
from collections import OrderedDict

LIBS = ("ours", "debian")


def load_jsonl(path):
    rows = []
    if not path:
        return rows
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                rows.append(json.loads(line))
    return rows


# ---- callgrind -----------------------------------------------------------------

def callgrind(args):
    # The simulator's share is inclusive: every call from outside the
    # preload into it, with everything it runs (its libc and libstdc++
    # calls too), as per_call.py counts it.
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from per_call import Profile
    p = Profile(args.file)
    if p.total == 0:
        sys.exit("report.py: no costs in %s" % args.file)
    rec = {"target": args.target, "case": args.case, "library": args.library,
           "iterations": args.iterations, "ir_per_iter": p.total / args.iterations,
           "ir_simulator_per_iter": p.sim / args.iterations}
    with open(args.out, "a") as f:
        f.write(json.dumps(rec) + "\n")


# ---- the simulator's system calls per ioctl -------------------------------------

def strace_counts(path):
    """syscall -> calls from an `strace -c` summary."""
    counts = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            # % time, seconds, usecs/call, calls, [errors,] syscall
            if len(parts) >= 5 and parts[3].isdigit() and parts[-1] != "total":
                counts[parts[-1]] = counts.get(parts[-1], 0) + int(parts[3])
    return counts


def syscalls(args):
    """System calls per simulated ioctl from two strace -c runs of
    hke-sim-rate that differ only in their iteration count: the setup,
    the start-up and the exit cancel out."""
    small, large = strace_counts(args.small), strace_counts(args.large)
    ioctls = args.ioctls_large - args.ioctls_small
    if ioctls <= 0:
        sys.exit("report.py: the larger run issued no more ioctls than the smaller one")
    by_name = {}
    for name in set(small) | set(large):
        d = large.get(name, 0) - small.get(name, 0)
        if d > 0:
            by_name[name] = d / ioctls
    rec = {"kind": "syscalls", "front_end": args.front_end, "mix": args.mix,
           "ioctls": ioctls, "per_ioctl": sum(by_name.values()), "by_name": by_name}
    with open(args.out, "a") as f:
        f.write(json.dumps(rec) + "\n")


MIX_TEXT = {
    "memory": "ALLOC + MAP + UNMAP + FREE of 4 KiB, GTT then VRAM (8 ioctls)",
    "cheap": "GET_VERSION + SET_EVENT (2 ioctls)",
}


def simulator_tables(rows):
    """The simulator's ioctls per second and system calls per ioctl, per
    front end and mix (records of hke-sim-rate and of `report.py syscalls`)."""
    rates = OrderedDict()
    calls = {}
    for r in rows:
        key = (r.get("front_end"), r.get("mix"))
        if r.get("kind") == "syscalls":
            calls[key] = r
        elif "ioctls_per_s" in r:
            rates[key] = r
    keys = list(rates) + [k for k in calls if k not in rates]
    if not keys:
        return []
    board = next((r.get("board") for r in rates.values() if r.get("board")), "?")
    lines = ["## The simulator: ioctls per second and system calls per ioctl", "",
             "`hke-sim-rate` (tools/bench/sim_rate.cc) issues a fixed ioctl mix straight to the "
             "simulator, no thunk in between, through each front end: `preload` "
             "(libkfdsim-preload.so serving the program's own `ioctl`) and `inprocess` "
             "(`hke_sim_platform()`'s table). Board %s. System calls per ioctl: `strace -f -c` "
             "of two runs that differ only in their iteration count, the difference divided "
             "by the extra ioctls." % board, "",
             "| front end | mix | ioctls/s | µs per ioctl | system calls per ioctl | which |",
             "|---|---|---:|---:|---:|---|"]
    for key in keys:
        r, c = rates.get(key), calls.get(key)
        per_s = r["ioctls_per_s"] if r else None
        which = "—"
        if c:
            # Calls rarer than one in 200 ioctls are the run's own noise
            # (a getrandom, a page fault's brk), not the ioctl path.
            which = ", ".join("%s %.2f" % (n, v) for n, v in
                              sorted(c["by_name"].items(), key=lambda kv: -kv[1]) if v >= 0.005)
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            key[0], MIX_TEXT.get(key[1], key[1]),
            "%.0fk" % (per_s / 1e3) if per_s else "—",
            "%.2f" % (1e6 / per_s) if per_s else "—",
            "%.2f" % c["per_ioctl"] if c else "—", which or "none"))
    lines.append("")
    return lines


# ---- rendering -------------------------------------------------------------------

def fmt_time(ns):
    if ns >= 1e9:
        return "%.2f s" % (ns / 1e9)
    if ns >= 1e6:
        return "%.2f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.1f µs" % (ns / 1e3)
    return "%.0f ns" % ns


def fmt_count(v):
    if v >= 1e6:
        return "%.2fM" % (v / 1e6)
    if v >= 1e4:
        return "%.1fk" % (v / 1e3)
    if v != round(v) and v < 10:
        return "%.2g" % v
    return "%d" % round(v)


def fmt_bytes(v):
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if v >= scale and v % scale == 0:
            return "%d %siB" % (v // scale, unit)
    return "%d B" % v


def state_text(r):
    if r is None:
        return "not run"
    if r["state"] == "not_implemented":
        return "n/a (not implemented)"
    if r["state"] == "skipped":
        return "skipped"
    if r["state"] == "error":
        return "error"
    return None


def allocs(r):
    return r["allocs_own"] + r["allocs_libc"] + r["allocs_unattributed"]


def work_text(r):
    if not any(r.get(k) for k in ("nodes", "mem_banks", "caches", "io_links", "bytes", "live")):
        return "—"  # a case that counts nothing (open-close, the queue cases)
    if r.get("live"):
        return "%d live" % r["live"]
    if r.get("bytes"):
        return fmt_bytes(r["bytes"])
    return "%d/%d/%d/%d" % (r["nodes"], r["mem_banks"], r["caches"], r["io_links"])


def family(case):
    """("alloc-map-free", "sys-4K") for a variant, (case, None) otherwise."""
    head, sep, variant = case.partition("/")
    return (head, variant) if sep else (case, None)


def instr_per_op(x, r):
    """The library's instructions per operation of a callgrind record (per
    timed iteration, the simulator's inclusive share subtracted, divided by
    the record's operations per iteration)."""
    lib = x["ir_per_iter"] - x.get("ir_simulator_per_iter", 0)
    return lib / max(r.get("ops_per_iter", 1) or 1, 1)


def ratio(ours, deb):
    if ours and deb and ours["state"] == "ok" and deb["state"] == "ok" and ours["median_ns"] > 0:
        return deb["median_ns"] / ours["median_ns"]
    return None


REQUIRED = ("case", "target", "library", "state")
DEFAULTS = {"median_ns": 0, "p99_ns": 0, "min_ns": 0, "mean_ns": 0, "iterations": 0,
            "allocs_own": 0, "allocs_libc": 0, "allocs_unattributed": 0,
            "allocs_simulator": 0, "detail": "", "issue": ""}


def usable(records):
    """Records with the fields the tables need; others (another tool's lines
    in the same file) are left out, missing counters read 0."""
    out = []
    for r in records:
        if all(k in r for k in REQUIRED) and r["library"] in LIBS:
            out.append(dict(DEFAULTS, **r))
    return out


def group(records):
    """case -> target -> library -> record, in first-seen order."""
    out = OrderedDict()
    for r in records:
        out.setdefault(r["case"], OrderedDict()).setdefault(r["target"], {})[r["library"]] = r
    return out


def summary_rows(case, targets, instr, has_ir, prefix=()):
    lines = []
    for target, libs in targets.items():
        o, d = libs.get("ours"), libs.get("debian")
        cells = list(prefix) + [target]
        ow = work_text(o) if o and o["state"] == "ok" else None
        dw = work_text(d) if d and d["state"] == "ok" else None
        if case == "open-close" or (ow is None and dw is None):
            cells.append("—")
        elif ow is None or dw is None or ow == dw:
            cells.append(ow or dw)
        else:
            cells.append("ours %s, Debian %s" % (ow, dw))
        for r in (o, d):
            st = state_text(r)
            if st:
                cells += [st, "—"]
            else:
                cells += [fmt_time(r["median_ns"]), fmt_time(r["p99_ns"])]
        q = ratio(o, d)
        cells.append("**%.1f×**" % q if q is not None else "n/a")
        for r in (o, d):
            cells.append(fmt_count(allocs(r)) if r and r["state"] == "ok" else "—")
        if has_ir:
            irs = []
            for lib in LIBS:
                x = instr.get((target, case, lib))
                r = libs.get(lib)
                ok = x is not None and r is not None and r["state"] == "ok"
                irs.append(instr_per_op(x, r) if ok else None)
                cells.append(fmt_count(irs[-1]) if ok else "—")
            cells.append("%.1f×" % (irs[1] / irs[0]) if irs[0] and irs[1] else "n/a")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def summary_tables(grouped, instr):
    """One table per case; the variants of a family ("alloc-map-free/sys-4K",
    ...) share one table with a variant column. Times and allocations are per
    operation (one iteration, or one query of query-pointer's batches)."""
    lines = []
    families = OrderedDict()
    for case, targets in grouped.items():
        families.setdefault(family(case)[0], []).append(case)
    for fam, cases in families.items():
        first = grouped[cases[0]]
        issue = next(iter(next(iter(first.values())).values())).get("issue", "")
        has_ir = any((t, c, lib) in instr for c in cases for t in grouped[c] for lib in LIBS)
        variants = family(cases[0])[1] is not None
        lines.append("### %s (issue %s)" % (fam, issue))
        lines.append("")
        head = (["variant"] if variants else []) + [
            "target", "work", "ours median", "ours p99", "Debian median", "Debian p99",
            "Debian/ours", "ours allocs", "Debian allocs"]
        if has_ir:
            head += ["ours library instr", "Debian library instr", "instr Debian/ours"]
        lines.append("| " + " | ".join(head) + " |")
        fixed = 3 if variants else 2
        lines.append("|" + "|".join(["---"] * fixed + ["---:"] * (len(head) - fixed)) + "|")
        for case in cases:
            prefix = (family(case)[1],) if variants else ()
            lines += summary_rows(case, grouped[case], instr, has_ir, prefix)
        lines.append("")
        if fam == "query-pointer":
            lines += scaling_table(grouped, cases)
    return lines


def scaling_table(grouped, cases):
    """query-pointer medians per live-allocation count, Debian / ours per target."""
    targets = []
    for c in cases:
        for t in grouped[c]:
            if t not in targets:
                targets.append(t)
    lines = ["Lookup time per query by live allocations (median, Debian / ours):", "",
             "| live allocations | " + " | ".join(targets) + " |",
             "|---:|" + "---:|" * len(targets)]
    for c in cases:
        cells = [family(c)[1]]
        for t in targets:
            libs = grouped[c].get(t, {})
            parts = []
            for lib in ("debian", "ours"):
                r = libs.get(lib)
                parts.append(fmt_time(r["median_ns"]) if r and r["state"] == "ok"
                             else (state_text(r) or "—").split(" ")[0])
            cells.append(" / ".join(parts))
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def detail_table(records, instr):
    lines = ["| case | target | library | state | iterations | median | p99 | min | mean | "
             "allocs own | allocs libc | allocs simulator | library instr/op | simulator instr/op |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in records:
        x = instr.get((r["target"], r["case"], r["library"]))
        ok = r["state"] == "ok"
        t = (lambda k: fmt_time(r[k]) if ok else "—")
        state = r["state"] + (": " + r["detail"] if r["detail"] else "")
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["case"], r["target"], r["library"], state.replace("|", "/"),
            r["iterations"] if ok else "—", t("median_ns"), t("p99_ns"), t("min_ns"),
            t("mean_ns"),
            r["allocs_own"] if ok else "—", r["allocs_libc"] if ok else "—",
            r["allocs_simulator"] if ok else "—",
            fmt_count(instr_per_op(x, r)) if x and ok else "—",
            fmt_count(x["ir_simulator_per_iter"] / max(r.get("ops_per_iter", 1) or 1, 1))
            if x and ok else "—"))
    return lines


# Notes shown after a case's row label in the chart.
CHART_NOTES = {"doorbell-latency/sdma-poll": "(control: no library code)"}
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")


def ir_ratio(instr, target, case, libs):
    """Debian's instructions per iteration over ours, the simulator's share
    subtracted from both (library + libc only); None without both counts."""
    vals = []
    for lib in LIBS:
        x = instr.get((target, case, lib))
        r = libs.get(lib)
        if x is None or r is None or r.get("state") != "ok":
            return None
        vals.append(x["ir_per_iter"] - x.get("ir_simulator_per_iter", 0))
    return vals[1] / vals[0] if vals[0] > 0 and vals[1] > 0 else None


def chart_rows(grouped):
    """Cases in chart order: families in first-seen order, a family's
    variants together."""
    families = OrderedDict()
    for case in grouped:
        families.setdefault(family(case)[0], []).append(case)
    return [c for cases in families.values() for c in cases]


def plot_ratio_panel(ax, rows, targets, value, title, missing):
    """One panel: a row per case, a marker per target at value(case, target)
    (a ratio, log x). Targets are offset within the row so equal ratios stay
    visible; nothing joins one row's markers to another's."""
    import matplotlib.ticker as ticker
    cmap = __import__("matplotlib").colormaps["tab10"]
    n = len(targets)
    spread = 0.6
    xs_all = []
    for k, t in enumerate(targets):
        off = (k - (n - 1) / 2) * (spread / max(n - 1, 1))
        xs, ys = [], []
        for i, case in enumerate(rows):
            q = value(case, t)
            if q is not None and q > 0:
                xs.append(q)
                ys.append(i + off)
        xs_all += xs
        ax.scatter(xs, ys, marker=MARKERS[k % len(MARKERS)], color=cmap(k % 10), s=26,
                   label=t, zorder=3, edgecolors="black", linewidths=0.3)
    lo = min(xs_all + [1.0]) / 1.8
    hi = max(xs_all + [1.0]) * 1.8
    lo, hi = min(lo, 1 / 2.5), max(hi, 2.5)
    ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    for i, case in enumerate(rows):
        if all(value(case, t) is None for t in targets):
            ax.text(lo * 1.1, i, missing, va="center", ha="left", fontsize=7, color="0.45")
    ax.axvline(1.0, color="black", linewidth=1.3, zorder=2)
    ax.axvspan(1.0, hi, color="#2a7ab9", alpha=0.05, zorder=0)
    ax.axvspan(lo, 1.0, color="#d0542c", alpha=0.05, zorder=0)
    ax.text(1.0, 1.0, "← Debian faster ", transform=ax.get_xaxis_transform(), ha="right",
            va="bottom", fontsize=8, color="#a03a1a")
    ax.text(1.0, 1.0, " ours faster →", transform=ax.get_xaxis_transform(), ha="left",
            va="bottom", fontsize=8, color="#1d5a8c")
    # 1-2-5 ticks over a few decades, one tick per decade over many.
    subs = (1.0, 2.0, 5.0) if hi / lo < 300 else (1.0,)
    ax.xaxis.set_major_locator(ticker.LogLocator(base=10, subs=subs))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: "%g×" % v))
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())
    ax.grid(axis="x", which="major", alpha=0.35)
    ax.grid(axis="x", which="minor", alpha=0.1)
    ax.set_title(title, fontsize=9, pad=16)
    # Separate the families.
    prev = None
    for i, case in enumerate(rows):
        fam = family(case)[0]
        if prev is not None and fam != prev:
            ax.axhline(i - 0.5, color="0.6", linewidth=0.6)
        prev = fam


def plot(grouped, instr, png):
    """One chart: Debian / ours per case (rows) and target (markers), log
    scale, 1× marked; time medians and, when counted, instructions per
    operation side by side."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = chart_rows(grouped)
    targets = []
    for case in rows:
        for t in grouped[case]:
            if t not in targets:
                targets.append(t)
    has_ir = any((t, c, lib) in instr for c in rows for t in grouped[c] for lib in LIBS)
    ncols = 2 if has_ir else 1
    top, bottom = 0.25, 0.8  # inches: the figure's title; the legend
    height = top + bottom + 0.5 + 0.3 * max(len(rows), 1)
    fig, axes = plt.subplots(1, ncols, sharey=True, squeeze=False,
                             figsize=(9.5 + 5.0 * (ncols - 1), height))

    def time_ratio(case, t):
        libs = grouped[case].get(t, {})
        return ratio(libs.get("ours"), libs.get("debian"))

    def instr_ratio(case, t):
        return ir_ratio(instr, t, case, grouped[case].get(t, {}))

    plot_ratio_panel(axes[0, 0], rows, targets, time_ratio,
                     "time per operation: Debian median / ours median", "no time for both")
    if has_ir:
        plot_ratio_panel(axes[0, 1], rows, targets, instr_ratio,
                         "instructions per operation: Debian / ours\n(library + libc; the "
                         "simulator's share subtracted)", "not counted")
    ax = axes[0, 0]
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([c + (" " + CHART_NOTES[c] if c in CHART_NOTES else "") for c in rows],
                       fontsize=8)
    ax.set_ylim(len(rows) - 0.5, -0.5)  # first case on top
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(targets), 3 * ncols),
               fontsize=8, frameon=False, title="target (built-in board or captured tree)",
               title_fontsize=8)
    fig.suptitle("hsakmt-embedded vs Debian's libhsakmt 5.2.3 on the simulator, per case and "
                 "target\n(ratio Debian / ours, log scale: right of the 1× line ours is faster)",
                 fontsize=10)
    fig.tight_layout(rect=(0, bottom / height, 1, 1 - top / height))
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return True


def render(args):
    records = usable(load_jsonl(args.records))
    instr = {(x["target"], x["case"], x["library"]): x for x in load_jsonl(args.instructions)}
    grouped = group(records)
    meta = OrderedDict(kv.split("=", 1) for kv in args.meta)
    summary = summary_tables(grouped, instr)
    md = ["# hke-bench results", ""]
    md.append("Generated by `%s`." % meta.pop("command", "tools/bench/run.sh"))
    if meta:
        md.append("")
        for k, v in meta.items():
            md.append("- %s: %s" % (k, v))
    md += ["", "Both libraries run in one process under `libkfdsim-preload.so`, interleaved "
           "iteration by iteration (query-pointer: one library after the other); times are "
           "wall-clock per operation (an iteration; query-pointer: one query of a batch of 16). "
           "Heap allocations are per operation, charged to the library (its own calls plus "
           "glibc's on its behalf), without the simulator's own. Work = nodes/memory "
           "banks/caches/io-links read per iteration (ours has one memory bank less per GPU "
           "node until it maps the MMIO page: Debian's MMIO_REMAP bank), the bytes allocated "
           "per alloc-map-free iteration, or query-pointer's live allocations. A case is "
           "\"skipped\" when this host cannot run it (the detail says why). Method and "
           "caveats: tools/bench/README.md.", "", "## Summary", ""]
    md += summary
    md += ["![Debian / ours per case and target](results.png)", ""]
    sim = simulator_tables(load_jsonl(args.simulator))
    md += sim
    md += ["## Details", ""]
    md += detail_table(records, instr)
    if not instr:
        md += ["", "Instructions per iteration: not measured in this run "
               "(`tools/bench/run.sh --instructions`)."]
    md.append("")
    with open(args.md, "w") as f:
        f.write("\n".join(md))
    print("\n".join(summary + sim))
    if not plot(grouped, instr, args.png):
        print("report.py: matplotlib is missing (Debian package python3-matplotlib); "
              "no plot written", file=sys.stderr)
        return 3
    return 0


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("callgrind")
    c.add_argument("--file", required=True)
    c.add_argument("--target", required=True)
    c.add_argument("--case", required=True)
    c.add_argument("--library", required=True, choices=LIBS)
    c.add_argument("--iterations", required=True, type=int)
    c.add_argument("--out", required=True)
    r = sub.add_parser("render")
    r.add_argument("--records", required=True)
    r.add_argument("--instructions")
    r.add_argument("--md", required=True)
    r.add_argument("--png", required=True)
    r.add_argument("--meta", action="append", default=[])
    r.add_argument("--simulator", help="hke-sim-rate and `report.py syscalls` records")
    y = sub.add_parser("syscalls")
    y.add_argument("--small", required=True, help="strace -c output of the shorter run")
    y.add_argument("--large", required=True, help="strace -c output of the longer run")
    y.add_argument("--ioctls-small", required=True, type=int)
    y.add_argument("--ioctls-large", required=True, type=int)
    y.add_argument("--front-end", required=True)
    y.add_argument("--mix", required=True)
    y.add_argument("--out", required=True)
    args = p.parse_args()
    if args.cmd == "callgrind":
        callgrind(args)
        return 0
    if args.cmd == "syscalls":
        syscalls(args)
        return 0
    return render(args)


if __name__ == "__main__":
    sys.exit(main())
