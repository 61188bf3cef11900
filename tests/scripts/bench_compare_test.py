"""Checks scripts/bench-compare without building anything: the statistics and
the flagging on synthetic roam-bench JSON lines, then the whole script on two
fake roam-bench programs (--binaries)."""
import json
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

sys.dont_write_bytecode = True
SCRIPTS = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "scripts")
sys.path.insert(0, SCRIPTS)

from bench_compare import compare, table  # noqa: E402
from bench_compare.compare import BASE, HEAD  # noqa: E402


def line(bench, case, metric, value, pes=1, nbytes=None):
    rec = {"bench": bench, "case": case, "pes": pes, "metric": metric, "value": value, "min": value, "max": value,
           "reps": 3}
    if nbytes is not None:
        rec["bytes"] = nbytes
    return json.dumps(rec)


def rows_of(base_runs, head_runs, threshold=0.15):
    """Rows for runs given as lists of JSON lines, BASE and HEAD alternating."""
    runs = []
    for b, h in zip(base_runs, head_runs):
        runs += [(BASE, compare.parse_lines("\n".join(b))), (HEAD, compare.parse_lines("\n".join(h)))]
    rows = compare.compare(compare.collect(runs), threshold)
    return {(r["case"], r["bytes"], r["metric"], r["pes"]): r for r in rows}


class Direction(unittest.TestCase):
    def test_every_metric_roam_bench_prints(self):
        rates = ["MB_per_s", "msgs_per_s_per_pe", "chares_per_s", "inserts_per_s"]
        costs = ["one_way_us", "ms", "us", "us_per_op", "us_per_hop", "us_per_switch", "us_per_yield",
                 "us_per_thread", "bytes_per_thread", "bytes_per_task"]
        for m in rates:
            self.assertTrue(compare.is_rate(m), m)
        for m in costs:
            self.assertFalse(compare.is_rate(m), m)

    def test_slowdown_above_one_means_head_slower(self):
        self.assertAlmostEqual(compare.slowdown(1.0, 1.5, "us_per_op"), 1.5)  # time went up
        self.assertAlmostEqual(compare.slowdown(3e6, 2e6, "msgs_per_s_per_pe"), 1.5)  # rate went down
        self.assertAlmostEqual(compare.slowdown(2e6, 3e6, "msgs_per_s_per_pe"), 2 / 3)
        self.assertIsNone(compare.slowdown(0.0, 1.0, "us"))
        self.assertIsNone(compare.slowdown(-5.0, 1.0, "bytes_per_thread"))


class Flagging(unittest.TestCase):
    def test_flags_only_cases_beyond_the_threshold(self):
        base = [[line("coll", "slow_time", "us_per_op", 1.0), line("coll", "ok_time", "us_per_op", 1.0),
                 line("empty", "slow_rate", "msgs_per_s_per_pe", 10e6),
                 line("empty", "fast_rate", "msgs_per_s_per_pe", 10e6),
                 line("fib", "fast_time", "ms", 100.0)]] * 3
        head = [[line("coll", "slow_time", "us_per_op", 1.2), line("coll", "ok_time", "us_per_op", 1.1),
                 line("empty", "slow_rate", "msgs_per_s_per_pe", 8e6),
                 line("empty", "fast_rate", "msgs_per_s_per_pe", 12e6),
                 line("fib", "fast_time", "ms", 80.0)]] * 3
        rows = rows_of(base, head)
        self.assertEqual(rows[("slow_time", None, "us_per_op", 1)]["status"], "SLOWER")
        self.assertEqual(rows[("ok_time", None, "us_per_op", 1)]["status"], "")
        self.assertEqual(rows[("slow_rate", None, "msgs_per_s_per_pe", 1)]["status"], "SLOWER")
        self.assertAlmostEqual(rows[("slow_rate", None, "msgs_per_s_per_pe", 1)]["slowdown"], 1.25)
        self.assertEqual(rows[("fast_rate", None, "msgs_per_s_per_pe", 1)]["status"], "faster")
        self.assertEqual(rows[("fast_time", None, "ms", 1)]["status"], "faster")
        self.assertEqual(len(compare.flagged(list(rows.values()))), 2)
        # The same figures against a 25% threshold: nothing is flagged.
        self.assertEqual(compare.flagged(list(rows_of(base, head, threshold=0.25).values())), [])

    def test_median_of_rounds_resists_one_noisy_round(self):
        base = [[line("coll", "c", "us", v)] for v in (1.0, 1.0, 1.0)]
        head = [[line("coll", "c", "us", v)] for v in (1.05, 9.0, 1.02)]
        row = rows_of(base, head)[("c", None, "us", 1)]
        self.assertEqual(row["head_median"], 1.05)
        self.assertEqual(row["status"], "")
        self.assertEqual(row["head_samples"], [1.05, 9.0, 1.02])

    def test_bytes_pes_and_metric_tell_cases_apart(self):
        base = [[line("pingpong", "same_pe_vector", "one_way_us", 1.0, nbytes=64),
                 line("pingpong", "same_pe_vector", "one_way_us", 2.0, nbytes=65536),
                 line("pingpong", "same_pe_vector", "MB_per_s", 100.0, nbytes=65536),
                 line("pingpong", "same_pe_vector", "one_way_us", 5.0, nbytes=64, pes=2)]]
        head = [[line("pingpong", "same_pe_vector", "one_way_us", 1.0, nbytes=64),
                 line("pingpong", "same_pe_vector", "one_way_us", 3.0, nbytes=65536),
                 line("pingpong", "same_pe_vector", "MB_per_s", 66.0, nbytes=65536),
                 line("pingpong", "same_pe_vector", "one_way_us", 5.0, nbytes=64, pes=2)]]
        rows = rows_of(base, head)
        self.assertEqual(len(rows), 4)
        self.assertEqual(rows[("same_pe_vector", 64, "one_way_us", 1)]["status"], "")
        self.assertEqual(rows[("same_pe_vector", 65536, "one_way_us", 1)]["status"], "SLOWER")
        self.assertEqual(rows[("same_pe_vector", 65536, "MB_per_s", 1)]["status"], "SLOWER")
        self.assertEqual(rows[("same_pe_vector", 64, "one_way_us", 2)]["status"], "")

    def test_cases_in_one_revision_only_are_reported_not_flagged(self):
        base = [[line("coll", "kept", "us", 1.0), line("coll", "removed", "us", 1.0)]]
        head = [[line("coll", "kept", "us", 1.0), line("coll", "added", "us", 50.0)]]
        rows = rows_of(base, head)
        self.assertEqual(rows[("removed", None, "us", 1)]["status"], "only in BASE")
        self.assertEqual(rows[("added", None, "us", 1)]["status"], "only in HEAD")
        self.assertIsNone(rows[("added", None, "us", 1)]["slowdown"])
        self.assertEqual(compare.flagged(list(rows.values())), [])
        text = table.text(list(rows.values()))
        self.assertIn("only in BASE", text)
        self.assertIn("only in HEAD", text)

    def test_numbers_keep_their_magnitude(self):
        self.assertEqual([table.number(x) for x in (0.02315, 5204, 13062, 101200, 2.86e6, 4.59e7, None)],
                         ["0.02315", "5204", "13.06 k", "101.2 k", "2.86 M", "45.9 M", "-"])

    def test_other_lines_are_skipped(self):
        out = "\n".join(["roam: a notice", "{not json", '{"bench":"coll"}', line("coll", "c", "us", 1.0), ""])
        self.assertEqual(len(compare.parse_lines(out)), 1)


FAKE = textwrap.dedent('''\
    #!/usr/bin/env python3
    # A stand-in for roam-bench: prints fixed results, scaled by FACTOR.
    import json, sys, time
    FACTOR, BENCHES, FAIL = {factor!r}, {benches!r}, {fail!r}
    args = sys.argv[1:]
    if not args or args[0] not in BENCHES:
        print("usage: roam-bench [" + "|".join(BENCHES + ["all", "noop"]) + "] [--json]", file=sys.stderr)
        sys.exit(2)
    if args[0] == FAIL:
        print("fake failure", file=sys.stderr)
        sys.exit(1)
    if args[0] == "hang":
        time.sleep(60)
    pes = int(args[args.index("+p") + 1])
    for case, metric, value in (("c_time", "us_per_op", 1.0), ("c_rate", "msgs_per_s", 1e6)):
        value = value * FACTOR if metric.endswith("us_per_op") else value / FACTOR
        print(json.dumps({{"bench": args[0], "case": case, "pes": pes, "metric": metric, "value": value}}))
''')


class WholeScript(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def fake(self, name, factor, benches=("coll", "fib"), fail=None):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(FAKE.format(factor=factor, benches=list(benches), fail=fail))
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def run_script(self, base, head, *extra):
        out = os.path.join(self.dir.name, "report")
        r = subprocess.run([sys.executable, os.path.join(SCRIPTS, "bench-compare"), "--binaries", base, head,
                            "--rounds", "2", "--out", out] + list(extra), capture_output=True, text=True, timeout=120)
        with open(out + ".json") as f:
            return r, json.load(f)

    def test_a_slower_head_fails(self):
        r, report = self.run_script(self.fake("base", 1.0), self.fake("head", 1.3))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(report["flagged"], 8)  # 2 benches x 2 cases x +p1,+p2
        self.assertEqual(len(report["runs"]), 2 * 2 * 2 * 2)  # rounds x PE counts x benches x revisions
        self.assertEqual([run["revision"] for run in report["runs"][:4]], [BASE, HEAD, BASE, HEAD])
        self.assertIn("SLOWER", r.stdout)
        self.assertTrue(os.path.exists(os.path.join(self.dir.name, "report.md")))

    def test_no_fail_and_threshold(self):
        base, head = self.fake("base", 1.0), self.fake("head", 1.3)
        self.assertEqual(self.run_script(base, head, "--no-fail")[0].returncode, 0)
        self.assertEqual(self.run_script(base, head, "--threshold", "35")[0].returncode, 0)
        self.assertEqual(self.run_script(base, self.fake("same", 1.1))[0].returncode, 0)

    def test_failed_runs_and_missing_benches_are_reported(self):
        base = self.fake("base", 1.0, benches=("coll", "fib", "old"))
        head = self.fake("head", 1.0, fail="fib")
        r, report = self.run_script(base, head, "--pes", "1")
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertEqual(report["failed_runs"], 2)
        statuses = {(row["bench"], row["case"]): row["status"] for row in report["rows"]}
        self.assertEqual(statuses[("fib", "c_time")], "only in BASE")
        self.assertEqual(statuses[("old", "c_rate")], "only in BASE")
        self.assertEqual(statuses[("coll", "c_time")], "")
        self.assertIn("FAILED RUN", r.stdout)

    def test_a_hanging_run_is_killed_and_reported(self):
        base = self.fake("base", 1.0, benches=("coll", "hang"))
        # 5 s, not 1: on a loaded 2-core machine starting the fake (a Python
        # program) took over a second, and the healthy "coll" runs were
        # counted as hung too (4 failed runs instead of 2).
        r, report = self.run_script(base, base, "--pes", "1", "--rounds", "1", "--timeout", "5")
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertEqual(report["failed_runs"], 2)
        self.assertIn("no result after 5 s", r.stdout)

    def test_unknown_bench_is_an_error(self):
        base = self.fake("base", 1.0)
        r = subprocess.run([sys.executable, os.path.join(SCRIPTS, "bench-compare"), "--binaries", base, base,
                            "--bench", "nosuch"], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown bench nosuch", r.stderr)


if __name__ == "__main__":
    unittest.main()
