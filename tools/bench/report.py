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
    return "%.1f µs" % (ns / 1e3)


def fmt_count(v):
    if v >= 1e6:
        return "%.2fM" % (v / 1e6)
    if v >= 1e4:
        return "%.1fk" % (v / 1e3)
    return "%d" % round(v)


def state_text(r):
    if r is None:
        return "not run"
    if r["state"] == "not_implemented":
        return "n/a (not implemented)"
    if r["state"] == "error":
        return "error"
    return None


def allocs(r):
    return r["allocs_own"] + r["allocs_libc"] + r["allocs_unattributed"]


def work_text(r):
    return "%d/%d/%d/%d" % (r["nodes"], r["mem_banks"], r["caches"], r["io_links"])


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


def summary_tables(grouped, instr):
    lines = []
    for case, targets in grouped.items():
        issue = next(iter(next(iter(targets.values())).values())).get("issue", "")
        has_ir = any((t, case, lib) in instr for t in targets for lib in LIBS)
        lines.append("### %s (issue %s)" % (case, issue))
        lines.append("")
        head = ["target", "work", "ours median", "ours p99", "Debian median", "Debian p99",
                "Debian/ours", "ours allocs/iter", "Debian allocs/iter"]
        if has_ir:
            head += ["ours instr/iter", "Debian instr/iter", "instr Debian/ours"]
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "|".join(["---"] * 2 + ["---:"] * (len(head) - 2)) + "|")
        for target, libs in targets.items():
            o, d = libs.get("ours"), libs.get("debian")
            cells = [target]
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
                    irs.append(x["ir_per_iter"] if ok else None)
                    cells.append(fmt_count(x["ir_per_iter"]) if ok else "—")
                cells.append("%.1f×" % (irs[1] / irs[0]) if irs[0] and irs[1] else "n/a")
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def detail_table(records, instr):
    lines = ["| case | target | library | state | iterations | median | p99 | min | mean | "
             "allocs own | allocs libc | allocs simulator | instr/iter | instr in simulator |",
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
            fmt_count(x["ir_per_iter"]) if x and ok else "—",
            fmt_count(x["ir_simulator_per_iter"]) if x and ok else "—"))
    return lines


def plot(grouped, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    cases = list(grouped.keys())
    fig, axes = plt.subplots(len(cases), 1, figsize=(11, 4.2 * len(cases)), squeeze=False)
    colors = {"ours": "#2a7ab9", "debian": "#d0542c"}
    for ax, case in zip(axes[:, 0], cases):
        targets = list(grouped[case].keys())
        width = 0.38
        for i, lib in enumerate(LIBS):
            xs, ys, errs = [], [], []
            for j, t in enumerate(targets):
                r = grouped[case][t].get(lib)
                x = j + (i - 0.5) * width
                if r and r["state"] == "ok":
                    xs.append(x)
                    ys.append(r["median_ns"] / 1e3)
                    errs.append(max(r["p99_ns"] - r["median_ns"], 0) / 1e3)
                else:
                    ax.text(x, 0.03, "n/a", ha="center", va="bottom", rotation=90, fontsize=8,
                            transform=ax.get_xaxis_transform())
            ax.bar(xs, ys, width, label=lib, color=colors[lib],
                   yerr=[[0] * len(errs), errs], capsize=2, error_kw={"elinewidth": 0.8})
        for j, t in enumerate(targets):
            q = ratio(grouped[case][t].get("ours"), grouped[case][t].get("debian"))
            if q is not None:
                top = grouped[case][t]["debian"]["p99_ns"] / 1e3
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
           "iteration by iteration; times are wall-clock per iteration. Heap allocations are "
           "per iteration, charged to the library (its own calls plus glibc's on its behalf), "
           "without the simulator's own. Work = nodes/memory banks/caches/io-links read per "
           "iteration (ours has one memory bank less per GPU node until it maps the MMIO "
           "page: Debian's MMIO_REMAP bank). Method and caveats: tools/bench/README.md.", "", "## Summary", ""]
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
