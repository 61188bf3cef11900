#!/usr/bin/env python3
"""ARMCI-MPI's own test programs, unmodified, built with roam's ampicc against
roam's armci.h and run as Adaptive MPI virtual ranks.

The programs are the ones ARMCI-MPI's `make check` runs (tests/Makefile.mk's
TESTS and the contrib ones), with its expected failures (XFAIL_TESTS:
test_assert, which must stop on a null address). Their source: an ARMCI-MPI
checkout (--source DIR) or files downloaded one by one at the pinned commit
into a cache (--cache DIR); without either, or offline, the run is reported
skipped (exit status 77) saying why.

  armci_mpi_suite.py --ampicc PATH --work DIR (--source DIR | --cache DIR)
                     [--runs "+p1 +vp 2;+p2 +vp 4"] [--launcher CMD] [--loader FILE] [--jobs 2]

Each program runs once per configuration (--runs, separated by ';'), with
--launcher prepended (e.g. "roamrun -n 2 +ppn 1"); a program passes when it
exits with status 0 (test_assert: when it stops with a message naming the
null address instead).
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import urllib.request

COMMIT = "035d5b4e07a6a3ed5ccfbead50c0c15341298cc6"  # pmodels/armci-mpi (2026-11)

# (name, sources under tests/, extra headers to fetch, timeout scale)
PROGRAMS = [(n, [f"{n}.c"], ["armci_acc_test_types.h"]) for n in (
    "test_onesided", "test_onesided_shared", "test_onesided_shared_dla", "test_mutex", "test_mutex_rmw",
    "test_mutex_trylock", "test_malloc", "test_malloc_irreg", "ARMCI_PutS_latency", "ARMCI_AccS_latency",
    "test_groups", "test_group_split", "test_malloc_group", "test_accs", "test_accs_dla", "test_acc_overlap",
    "test_location_consistency", "test_puts", "test_puts_gets", "test_puts_gets_dla", "test_putv", "test_igop",
    "test_rmw_fadd", "test_assert")] + [
    ("test_parmci", ["test_parmci.c", "test_parmci_lib.c"], []),
    ("armci-perf", ["contrib/armci-perf.c"], ["contrib/mp3.h"]),
    ("armci-test", ["contrib/armci-test.c"], ["contrib/mp3.h"]),
    ("lu-block", ["contrib/lu/lu-block.c", "contrib/lu/lu_timing.c"], ["contrib/lu/mp3.h"]),
    ("lu-b-bc", ["contrib/lu/lu-b-bc.c", "contrib/lu/lu_timing.c"], ["contrib/lu/mp3.h"]),
    ("simple", ["contrib/non-blocking/simple.c"], ["contrib/non-blocking/mp3.h"]),
    ("transp1D-c", ["contrib/transp1D/transp1D-c.c"], ["contrib/transp1D/mp3.h"]),
]
# Programs that must fail, and what their failure must say.
EXPECTED_FAILURE = {"test_assert": r"ARMCI_Get from rank \d+ to rank \d+ reaches 0\.\.0x1 \(1 bytes\), outside every block"}
# armci-test and armci-perf sleep between their parts (each PE sleeps for
# each of its ranks: 41 s and 15 s with a rank per PE, under a second of
# work): they run once, on 2 PEs with a rank each, in one process
# (--launcher runs leave them out), with more time.
SLOW = {"armci-test": 3, "armci-perf": 2}
SLOW_RUN = "+p2 +vp 2"


class Source:
    def __init__(self, root, cache, commit):
        self.root = os.path.join(root, "tests") if root else os.path.join(cache, commit, "tests")
        self.download = not root
        self.commit = commit

    def path(self, rel):
        p = os.path.join(self.root, rel)
        if os.path.exists(p) or not self.download:
            return p
        url = f"https://raw.githubusercontent.com/pmodels/armci-mpi/{self.commit}/tests/{rel}"
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with urllib.request.urlopen(url, timeout=30) as r:
            data = r.read()
        with open(p + ".part", "wb") as f:
            f.write(data)
        os.replace(p + ".part", p)
        return p


def build(args, src, name, sources):
    out_dir = os.path.join(args.work, "bin")
    os.makedirs(out_dir, exist_ok=True)
    prog = os.path.join(out_dir, name)
    files = [src.path(s) for s in sources]
    # Built already by an earlier run with this wrapper and loader: reused.
    newest = max([os.path.getmtime(f) for f in files] + [os.path.getmtime(os.path.realpath(args.ampicc))] +
                 [os.path.getmtime(os.path.realpath(l)) for l in args.loader])
    if os.path.exists(prog + ".so") and os.path.getmtime(prog + ".so") > newest:
        return prog, ""
    dirs = sorted({os.path.dirname(f) for f in files})
    r = subprocess.run([args.ampicc, "-w", "-O1"] + [f"-I{d}" for d in dirs] + ["-o", prog] + files + ["-lm"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        first = next((l for l in r.stderr.splitlines() if "error" in l), r.stderr[:200])
        return None, "does not build: " + first.strip()
    return prog, ""


def run(args, name, prog, run_args):
    cmd = args.launcher.split() + [prog] + run_args.split()
    timeout = args.timeout * SLOW.get(name, 1)
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=os.path.dirname(prog))
    except subprocess.TimeoutExpired:
        return False, f"timed out after {timeout} s"
    text = r.stdout + r.stderr
    if name in EXPECTED_FAILURE:
        ok = r.returncode != 0 and re.search(EXPECTED_FAILURE[name], text) is not None
        return ok, "failed as expected" if ok else f"exit status {r.returncode}, not the expected failure"
    if r.returncode == 0:
        return True, "passed"
    tail = " | ".join(l.strip() for l in text.strip().splitlines()[-3:])
    return False, f"exit status {r.returncode}: {tail[:300]}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ampicc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--source", default="", help="an ARMCI-MPI checkout")
    ap.add_argument("--cache", default="", help="where downloaded files are kept (without --source)")
    ap.add_argument("--commit", default=COMMIT)
    ap.add_argument("--runs", action="append", default=[],
                    help="configurations, ';'-separated, or the option repeated (default: +p1 +vp 2;+p2 +vp 4)")
    ap.add_argument("--launcher", default="")
    ap.add_argument("--loader", action="append", default=[],
                    help="files whose change means rebuilding the programs (the roam-ampi loader)")
    ap.add_argument("--programs", default="", help="only these (comma-separated)")
    ap.add_argument("--no-slow", action="store_true", help="leave out the programs that sleep (SLOW)")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    if not args.source and not args.cache:
        ap.error("give --source DIR or --cache DIR")
    if args.source and not os.path.isdir(os.path.join(args.source, "tests")):
        print(f"armci_mpi_suite: {args.source} has no tests/ directory", file=sys.stderr)
        return 2
    wanted = set(filter(None, args.programs.split(",")))
    programs = [p for p in PROGRAMS if (not wanted or p[0] in wanted) and not (args.no_slow and p[0] in SLOW)]
    if wanted and len(programs) != len(wanted):
        ap.error("--programs: the programs are " + ", ".join(p[0] for p in PROGRAMS))
    src = Source(args.source, args.cache, args.commit)
    try:
        for _, sources, headers in programs:
            for f in sources + headers:
                src.path(f)
    except OSError as e:
        print(f"armci_mpi_suite: SKIPPED: ARMCI-MPI's tests are not here and could not be downloaded ({e}); "
              "give --source with a checkout of pmodels/armci-mpi", file=sys.stderr)
        return 77
    runs = [r.strip() for spec in (args.runs or ["+p1 +vp 2;+p2 +vp 4"]) for r in spec.split(";") if r.strip()]
    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        built = dict(zip([p[0] for p in programs], pool.map(lambda p: build(args, src, p[0], p[1]), programs)))
        jobs = []
        for name, _, _ in programs:
            prog, why = built[name]
            if prog is None:
                failed.append((name, "-", why))
                print(f"FAIL {name}: {why}", flush=True)
                continue
            for r in ([SLOW_RUN] if not args.launcher else []) if name in SLOW else runs:
                jobs.append((name, r, pool.submit(run, args, name, prog, r)))
        for name, r, fut in jobs:
            ok, what = fut.result()
            print(f"{'ok  ' if ok else 'FAIL'} {name} [{args.launcher + ' ' if args.launcher else ''}{r}]: {what}",
                  flush=True)
            if not ok:
                failed.append((name, r, what))
    total = len(jobs) + sum(1 for p in programs if not built[p[0]][0])
    print(f"armci_mpi_suite: {total - len(failed)}/{total} passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
