#!/usr/bin/env python3
"""bench_table.py: the table from benches' reports, a failed bench, a quick run's goals, the
results file and the Markdown page."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_table  # noqa: E402


def report(name, mode="full", ok=True, figures=None):
    return {"bench": name, "mode": mode, "ok": ok,
            "anchors": [{"name": "shell", "what": "a plain shell loop", "threads": 1,
                         "pinning": "none", "work": "4 ranks"}],
            "figures": figures or [], "checks": []}


LAUNCH = {"figure": "all ranks started", "unit": "ms", "ours": 12.3, "anchor": 10.0,
          "anchor_name": "shell", "ratio": 1.23, "goal": {"on": "ratio", "at_most": 1.2},
          "met": False}
RESUME = {"figure": "resume", "unit": "s", "ours": 1.4, "goal": {"on": "value", "at_most": 3},
          "met": True}


class BenchTable(unittest.TestCase):
    def write(self, directory, name, body, status):
        with open(os.path.join(directory, name + ".json"), "w") as f:
            json.dump(body, f)
        path = os.path.join(directory, "statuses.json")
        statuses = json.load(open(path)) if os.path.exists(path) else {}
        statuses[name] = {"exit": status, "seconds": 1, "ended": "2026-11-26 15:00"}
        with open(path, "w") as f:
            json.dump(statuses, f)

    def test_rows_goals_and_failures(self):
        with tempfile.TemporaryDirectory() as d:
            self.write(d, "bench_launch", report("launch", figures=[LAUNCH]), 0)
            self.write(d, "bench_spot", report("spot", figures=[RESUME]), 0)
            self.write(d, "bench_quick", report("quick", mode="quick", figures=[RESUME]), 0)
            self.write(d, "bench_broken", report("broken", ok=True, figures=[RESUME]), 1)
            with open(os.path.join(d, "statuses.json")) as f:
                statuses = json.load(f)
            statuses["bench_gone"] = {"exit": 134, "seconds": 2, "ended": "2026-11-26 15:01"}
            with open(os.path.join(d, "statuses.json"), "w") as f:
                json.dump(statuses, f)
            reports, _ = bench_table.load(d)
            rows = {(r[0], r[1]): r for r in bench_table.rows(reports)}
            self.assertEqual(rows[("launch", "all ranks started")][2:],
                             ("12.3 ms", "10.0 ms", "1.23×", "≤ 1.20×", "MISSED"))
            self.assertEqual(rows[("spot", "resume")][2:], ("1.40 s", "–", "–", "≤ 3.00 s", "met"))
            self.assertEqual(rows[("quick", "resume")][6], "quick run")
            self.assertEqual(rows[("broken", "a check failed: see its log")][6], "FAILED")
            self.assertIn(("gone", "(no figures: exit status 134)"), rows)

    def test_a_skipped_bench_says_why(self):
        with tempfile.TemporaryDirectory() as d:
            skipped = report("remote")
            skipped["details"] = {"skipped": "needs root"}
            self.write(d, "bench_remote", skipped, 0)
            reports, _ = bench_table.load(d)
            self.assertEqual(bench_table.rows(reports)[0][1], "(no figures: skipped: needs root)")

    def test_command_writes_results_and_markdown(self):
        with tempfile.TemporaryDirectory() as d:
            self.write(d, "bench_launch", report("launch", figures=[LAUNCH]), 0)
            results, page = os.path.join(d, "r.json"), os.path.join(d, "b.md")
            out = subprocess.run([sys.executable, os.path.join(HERE, "bench_table.py"), d,
                                  "--results", results, "--markdown", page],
                                 capture_output=True, text=True, check=True).stdout
            self.assertIn("all ranks started", out)
            with open(results) as f:
                written = json.load(f)
            self.assertEqual(written["benches"]["bench_launch"]["figures"][0]["ours"], 12.3)
            self.assertGreaterEqual(written["machine"]["cores"], 1)
            with open(page) as f:
                text = f.read()
            self.assertIn("| launch | all ranks started | 12.3 ms | 10.0 ms | 1.23× |", text)
            self.assertIn("pinning: none", text)

    def test_no_reports_is_an_error(self):
        with tempfile.TemporaryDirectory() as d:
            done = subprocess.run([sys.executable, os.path.join(HERE, "bench_table.py"), d],
                                  capture_output=True, text=True, check=False)
            self.assertEqual(done.returncode, 1)
            self.assertIn("no reports", done.stderr)


if __name__ == "__main__":
    unittest.main()
