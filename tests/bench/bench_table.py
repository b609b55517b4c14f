#!/usr/bin/env python3
"""One table from the benches' reports (tests/bench/bench_support.h writes one JSON per bench).

    bench_table.py OUT_DIR [--results FILE] [--markdown FILE] [--statuses FILE]

OUT_DIR holds <bench>.json (a report) and, from packaging/studio.sh bench, statuses.json (each
bench's exit status, wall time and when it ran). Prints the table (figure, ours, anchor, ratio,
goal, met or missed), writes every report and the machine into --results, and the table with
the machine it ran on as Markdown into --markdown.
"""

import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys


def machine():
    """The machine the benches ran on, in the words the table prints."""
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory_gib = 0.0
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    memory_gib = int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    os_name = platform.platform()
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    os_name = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    commit = ""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, cwd=os.path.dirname(os.path.abspath(__file__)),
                                check=False).stdout.strip()
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": round(memory_gib, 1),
            "os": os_name, "kernel": platform.release(), "gpu": gpu(), "commit": commit}


def gpu():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, check=False, timeout=20)
        names = [n.strip() for n in out.stdout.splitlines() if n.strip()]
        return ", ".join(names) if names else "none"
    except (OSError, subprocess.SubprocessError):
        return "none"


def number(v):
    """A figure in three significant digits, or an en dash when there is none."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "–"
    if v == 0:
        return "0"
    magnitude = abs(v)
    if magnitude >= 1000:
        return f"{v:,.0f}"
    if magnitude >= 100:
        return f"{v:.0f}"
    if magnitude >= 10:
        return f"{v:.1f}"
    if magnitude >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def goal_text(figure):
    goal = figure.get("goal")
    if not goal:
        return "–"
    on_ratio = goal.get("on") == "ratio"
    kind, bound = ("≥", goal["at_least"]) if "at_least" in goal else ("≤", goal.get("at_most"))
    if on_ratio:
        return f"{kind} {number(bound)}×"
    return f"{kind} {number(bound)} {figure.get('unit', '')}".strip()


def met_text(figure, report):
    if "met" not in figure:
        return ""
    if report.get("mode") == "quick":
        return "quick run"
    return "met" if figure["met"] else "MISSED"


def rows(reports):
    """(bench, figure, ours, anchor, ratio, goal, met) for every figure of every report."""
    out = []
    for name in sorted(reports):
        report = reports[name]
        figures = report.get("figures", [])
        skipped = (report.get("details") or {}).get("skipped")
        if not figures:
            why = f"skipped: {skipped}" if skipped else report.get("status", "failed")
            out.append((short(name), f"(no figures: {why})", "", "", "", "", ""))
        for f in figures:
            unit = f.get("unit", "")
            anchor = f.get("anchor")
            out.append((short(name), f.get("figure", ""), f"{number(f.get('ours'))} {unit}".strip(),
                        f"{number(anchor)} {unit}".strip() if anchor is not None else "–",
                        f"{number(f['ratio'])}×" if "ratio" in f else "–", goal_text(f),
                        met_text(f, report)))
        if not report.get("ok", True):
            out.append((short(name), "a check failed: see its log", "", "", "", "", "FAILED"))
    return out


def short(name):
    return name[len("bench_"):] if name.startswith("bench_") else name


HEADER = ("bench", "figure", "ours", "anchor", "ratio", "goal", "")


def text_table(table):
    widths = [max(len(str(r[i])) for r in [HEADER] + table) for i in range(len(HEADER))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(HEADER, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for r in table:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    return "\n".join(lines)


def markdown(table, reports, host, statuses):
    out = ["# Benchmarks", "",
           "The last full run of `packaging/studio.sh bench` (its table, written by "
           "`tests/bench/bench_table.py`). Every anchor runs in the same bench run as ours, under "
           "the conditions its record states (the `anchors` of each bench's JSON in "
           "`build/bench/results.json`). Ratios are ours / anchor. A goal is met or missed; no "
           "test fails on one.", "",
           "## Machine", "",
           f"- CPU: {host['cpu']}, {host['cores']} cores; memory {host['memory_gib']} GiB; "
           f"GPU: {host['gpu']}",
           f"- {host['os']}, kernel {host['kernel']}; commit {host['commit']}", ""]
    if statuses:
        ended = sorted(s.get("ended", "") for s in statuses.values() if s.get("ended"))
        if ended:
            out += [f"- The benches ended between {ended[0]} and {ended[-1]} (UTC).", ""]
    out += ["## Figures", "", "| " + " | ".join(h or "met" for h in HEADER) + " |",
            "|" + "---|" * len(HEADER)]
    for r in table:
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |")
    if statuses:
        out += ["", "## Runs", "", "When each bench ended (UTC) and how long it ran; a bench run apart "
                "from the others (`studio.sh bench NAME`) shows here.", "",
                "| bench | ended | seconds | exit |", "|---|---|---|---|"]
        for name in sorted(statuses):
            st = statuses[name]
            out.append(f"| {short(name)} | {st.get('ended', '')} | {st.get('seconds', '')} | "
                       f"{st.get('exit', '')} |")
    out += ["", "## Anchors", ""]
    for name in sorted(reports):
        for a in reports[name].get("anchors", []):
            facts = [a.get("version"),
                     f"{a['threads']} thread(s) per process" if a.get("threads") else None,
                     f"pinning: {a['pinning']}" if a.get("pinning") else None,
                     f"transport: {a['transport']}" if a.get("transport") else None,
                     f"work: {a['work']}" if a.get("work") else None]
            facts = [f for f in facts if f]
            out.append(f"- **{short(name)} / {a.get('name', '')}**: {a.get('what', '')}"
                       + (f" ({'; '.join(str(f) for f in facts)})" if facts else ""))
    return "\n".join(out) + "\n"


def load(out_dir):
    reports, statuses = {}, {}
    path = os.path.join(out_dir, "statuses.json")
    if os.path.exists(path):
        with open(path) as f:
            statuses = json.load(f)
    for entry in sorted(os.listdir(out_dir)):
        if not entry.endswith(".json") or entry == "statuses.json":
            continue
        name = entry[:-5]
        try:
            with open(os.path.join(out_dir, entry)) as f:
                reports[name] = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            reports[name] = {"ok": False, "status": f"unreadable report: {e}"}
    for name, status in statuses.items():
        if name not in reports:
            reports[name] = {"ok": False, "status": f"exit status {status.get('exit')}"}
        elif status.get("exit", 0) != 0:
            reports[name]["ok"] = False
    return reports, statuses


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--results")
    parser.add_argument("--markdown")
    args = parser.parse_args()
    reports, statuses = load(args.out_dir)
    if not reports:
        print(f"bench_table: no reports in {args.out_dir}", file=sys.stderr)
        return 1
    host = machine()
    table = rows(reports)
    print(text_table(table))
    if args.results:
        with open(args.results, "w") as f:
            json.dump({"machine": host, "written": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                       "statuses": statuses, "benches": reports}, f, indent=2)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(table, reports, host, statuses))
    return 0


if __name__ == "__main__":
    sys.exit(main())
