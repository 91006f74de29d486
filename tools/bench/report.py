#!/usr/bin/env python3
"""Turns hke-bench records into results.md and results.png (tools/bench/run.sh).

  report.py callgrind --file CG.OUT --target T --case C --library L
                      --iterations N --out instructions.jsonl
      appends the instructions per timed iteration of one callgrind run
      (collection toggled on hke_bench_measured_<library>): all of them, and
      those executed in libkfdsim-preload.so's own code.

  report.py render --records records.jsonl [--instructions instructions.jsonl]
                   --md results.md --png results.png [--meta KEY=VALUE ...]
      writes the Markdown report and the plot, prints the summary tables.
      Without matplotlib the plot is skipped and the exit status is 3.
"""
import argparse
import json
import math
import re
import subprocess
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
    totals = None
    with open(args.file) as f:
        for line in f:
            m = re.match(r"^(?:totals|summary):\s+(\d+)", line)
            if m:
                totals = int(m.group(1))
    if totals is None:
        sys.exit("report.py: no totals in %s" % args.file)
    # Self cost per function with its object; sum what runs in the preload.
    ann = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", args.file],
                         capture_output=True, text=True, check=True).stdout
    sim = 0
    for line in ann.splitlines():
        m = re.match(r"^\s*([\d,]+)\s+\([^)]*\)\s+.*\[(.*)\]\s*$", line)
        if m and "kfdsim-preload" in m.group(2):
            sim += int(m.group(1).replace(",", ""))
    rec = {"target": args.target, "case": args.case, "library": args.library,
           "iterations": args.iterations, "ir_per_iter": totals / args.iterations,
           "ir_simulator_per_iter": sim / args.iterations}
    with open(args.out, "a") as f:
        f.write(json.dumps(rec) + "\n")


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
    """Instructions per operation of a callgrind record (per timed iteration
    divided by the record's operations per iteration)."""
    return x["ir_per_iter"] / max(r.get("ops_per_iter", 1) or 1, 1)


def ratio(ours, deb):
    if ours and deb and ours["state"] == "ok" and deb["state"] == "ok" and ours["median_ns"] > 0:
        return deb["median_ns"] / ours["median_ns"]
    return None


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
            head += ["ours instr", "Debian instr", "instr Debian/ours"]
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
             "allocs own | allocs libc | allocs simulator | instr/op | instr in simulator |",
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


COLORS = {"ours": "#2a7ab9", "debian": "#d0542c"}


def plot_bars(ax, case, targets_libs):
    """One case: per target, a bar per library (median, whisker to p99)."""
    targets = list(targets_libs.keys())
    width = 0.38
    for i, lib in enumerate(LIBS):
        xs, ys, errs = [], [], []
        for j, t in enumerate(targets):
            r = targets_libs[t].get(lib)
            x = j + (i - 0.5) * width
            if r and r["state"] == "ok":
                xs.append(x)
                ys.append(r["median_ns"] / 1e3)
                errs.append(max(r["p99_ns"] - r["median_ns"], 0) / 1e3)
            else:
                ax.text(x, 0.03, "n/a", ha="center", va="bottom", rotation=90, fontsize=8,
                        transform=ax.get_xaxis_transform())
        ax.bar(xs, ys, width, label=lib, color=COLORS[lib],
               yerr=[[0] * len(errs), errs], capsize=2, error_kw={"elinewidth": 0.8})
    for j, t in enumerate(targets):
        q = ratio(targets_libs[t].get("ours"), targets_libs[t].get("debian"))
        if q is not None:
            top = targets_libs[t]["debian"]["p99_ns"] / 1e3
            ax.text(j, top * 1.25, "%.0f×" % q if q >= 10 else "%.1f×" % q,
                    ha="center", va="bottom", fontsize=9, fontweight="bold")
    ax.set_yscale("log")
    ax.set_ylabel("µs per iteration (median, bar to p99)")
    ax.set_title("%s: ours vs Debian libhsakmt 5.2.3 (simulated, same preload)" % case)
    ax.set_xticks(range(len(targets)))
    ax.set_xticklabels(targets, rotation=12, fontsize=8)
    lo, hi = ax.get_ylim()
    ax.set_ylim(max(lo, 0.5), hi * 4)
    ax.legend(loc="upper left")
    ax.grid(axis="y", which="major", alpha=0.3)


def plot_family(ax, fam, grouped, cases):
    """A family: x = variant (query-pointer: live allocations, log scale),
    one line per target and library (Debian dashed, ours solid)."""
    targets = []
    for c in cases:
        for t in grouped[c]:
            if t not in targets:
                targets.append(t)
    numeric = all(family(c)[1].isdigit() for c in cases)
    xs_all = [int(family(c)[1]) if numeric else i for i, c in enumerate(cases)]
    cmap = __import__("matplotlib").colormaps["tab10"]
    plotted = 0
    for k, t in enumerate(targets):
        for lib, style in (("debian", "--"), ("ours", "-")):
            xs, ys = [], []
            for x, c in zip(xs_all, cases):
                r = grouped[c].get(t, {}).get(lib)
                if r and r["state"] == "ok":
                    xs.append(x)
                    ys.append(r["median_ns"] / 1e3)
            if xs:
                ax.plot(xs, ys, style, marker="o" if lib == "ours" else "s", color=cmap(k % 10),
                        label="%s %s" % (lib, t), linewidth=1.2, markersize=4)
                plotted += 1
    if plotted == 0:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    ax.set_yscale("log")
    if numeric:
        ax.set_xscale("log")
        ax.set_xlabel("live allocations")
        ax.set_xticks(xs_all)
        ax.set_xticklabels([str(x) for x in xs_all])
        ax.set_ylabel("µs per query (median)")
        ax.set_title("%s: lookup time by live allocations (ours must stay flat; Debian "
                     "dashed, ours solid)" % fam)
    else:
        ax.set_xticks(xs_all)
        ax.set_xticklabels([family(c)[1] for c in cases], fontsize=8)
        ax.set_ylabel("µs per operation (median)")
        by = "size class" if fam == "alloc-map-free" else "variant"
        ax.set_title("%s: time per operation by %s (Debian dashed, ours solid)" % (fam, by))
    ax.grid(which="major", alpha=0.3)
    if plotted:
        ax.legend(loc="upper left", fontsize=7, ncol=2)


def plot(grouped, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    panels = OrderedDict()  # family or case -> [cases]
    for case in grouped:
        panels.setdefault(family(case)[0], []).append(case)
    fig, axes = plt.subplots(len(panels), 1, figsize=(11, 4.2 * len(panels)), squeeze=False)
    for ax, (name, cases) in zip(axes[:, 0], panels.items()):
        if family(cases[0])[1] is None:
            plot_bars(ax, name, grouped[name])
        else:
            plot_family(ax, name, grouped, cases)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    return True


def render(args):
    records = load_jsonl(args.records)
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
    md += ["![ours vs Debian per tree](results.png)", "", "## Details", ""]
    md += detail_table(records, instr)
    if not instr:
        md += ["", "Instructions per iteration: not measured in this run "
               "(`tools/bench/run.sh --instructions`)."]
    md.append("")
    with open(args.md, "w") as f:
        f.write("\n".join(md))
    print("\n".join(summary))
    if not plot(grouped, args.png):
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
    args = p.parse_args()
    if args.cmd == "callgrind":
        callgrind(args)
        return 0
    return render(args)


if __name__ == "__main__":
    sys.exit(main())
