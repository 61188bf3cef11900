#!/usr/bin/env python3
"""mpich_subset: the MPICH test suite's Adaptive MPI subset, built with
roam's ampicc and run on roam, against the list of known outcomes.

The tests are MPICH 3.2's (as Charm++ keeps them in tests/ampi/mpich-test,
with a testlist.ampi per directory naming the tests and their rank counts);
they are used unmodified, never copied into roam. Their source comes from a
Charm++ checkout (--charm DIR, e.g. ROAM_CHARM_SOURCE_DIR) or is downloaded
file by file at the pinned commit into --cache; without either the run says
it was skipped and why (exit status 77, which CTest reports as skipped).

For each test of the chosen directories: built as `ampicc -o T T.c` with the
suite's util/ sources, run as `T +vp NP +pPES` (NP from testlist.ampi), and
passed when it exits 0 and prints "No Errors" (any case). The outcome is
compared with mpich_expected.txt: every test passes except those listed there
as failing (each with the reason); a listed test that now passes is reported
too, so the list stays true. Then Charm++'s own AMPI programs
(tests/ampi/migration, chkpt, privatization...: CHARM_PROGRAMS), built and
run as their Makefiles build and run them. Exit status 0 when everything is
as expected.

  mpich_subset.py --ampicc PATH --work DIR [--charm DIR | --cache DIR]
                  [--expected FILE] [--dirs pt2pt,coll,... | --only-charm]
                  [--programs migration,...] [--pes 2] [--timeout 60] [--jobs 2]
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import urllib.request

COMMIT = "2ff9e1559fae969d2cf178b0ef7dccf57d76820b"  # charmplusplus/charm: the suite as Charm++ keeps it (2026-11)
SUITE = "tests/ampi/mpich-test"
DIRS = ["pt2pt", "coll", "datatype", "comm", "group", "attr", "init", "info", "topo", "rma"]
UTIL = ["util/mtest.c", "util/dtypes.c", "util/mtest_datatype.c", "util/mtest_datatype_gen.c"]
HEADERS = ["include/mpitest.h", "include/dtypes.h", "include/mpicolltest.h", "include/mpithreadtest.h",
           "util/mtest_datatype.h"]

# What MPICH's configure would find on a Linux/glibc machine (the suite's
# include/mpitestconf.h.in): written by this script, not taken from MPICH.
CONF = """#ifndef MPITESTCONF_H_INCLUDED
#define MPITESTCONF_H_INCLUDED
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_STDARG_H 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE__BOOL 1
#define STDC_HEADERS 1
#define SIZEOF_INT 4
#define SIZEOF_LONG 8
#define SIZEOF_LONG_LONG 8
#define SIZEOF_SHORT 2
#define SIZEOF_VOID_P 8
#define SIZEOF_MPI_OFFSET 8
#define POINTERINT_t long
#endif
"""


class Source:
    """Files of the suite: from a checkout, or downloaded into a cache."""

    def __init__(self, charm, cache, commit):
        self.root = os.path.join(charm, SUITE) if charm else os.path.join(cache, commit, SUITE)
        self.download = not charm
        self.commit = commit

    def path(self, rel, suite=SUITE):
        root = self.root if suite == SUITE else os.path.join(os.path.dirname(self.root), os.path.relpath(suite, "tests/ampi"))
        p = os.path.join(root, rel)
        if os.path.exists(p) or not self.download:
            return p
        url = f"https://raw.githubusercontent.com/charmplusplus/charm/{self.commit}/{suite}/{rel}"
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with urllib.request.urlopen(url, timeout=30) as r:
            data = r.read()
        with open(p + ".part", "wb") as f:
            f.write(data)
        os.replace(p + ".part", p)
        return p


# Charm++'s own AMPI test programs that use standard MPI plus AMPI's
# extensions roam provides (jacobi3d needs Charm++'s +killFile fault
# injection: not run): (name, compiler, source(s) under tests/ampi, extra
# flags, runs as (args, output to expect[, output that must not appear])
# [, shared libraries the program links with: (name, sources, flags)]).
#
# privatization is built as its Makefile builds the pieglobals variant, the
# Charm++ method roam's privatization corresponds to (the program a
# position-independent image copied per rank): FEATURES_pieglobals_cxx's
# defines (globals, statics, a shared library's globals, migration; no
# thread-locals, which are per PE), vars-shared.C as the shared library it
# links with (-rpath-origin), RandCentLB at its AMPI_Migrate. The Makefile's
# runs, more ranks, and RotateLB, which moves every rank on 2 PEs: its
# AMPI_Register_about_to_migrate / just_migrated functions print, and
# complain if the globals are wrong then.
PRIVATIZATION_FLAGS = ["-Dprivatization_method=pieglobals"] + [
    "-Dtest_" + f for f in ("globalvars", "staticvars", "sharedlib", "migration")]
PRIVATIZATION_BAD = r"incorrect|failed|inconsistency|skipped"
CHARM_PROGRAMS = [
    ("migration", "ampicxx", "migration/test.C", [],
     [(a, "All tests passed") for a in ("+p1 +vp1", "+p1 +vp4", "+p1 +vp20", "+p2 +vp1", "+p2 +vp4", "+p2 +vp20")]),
    # the checkpoint to disk at step 2, then restarts from it on other PE counts
    ("chkpt", "ampicc", "chkpt/hello.c", [],
     [("+p2 +vp8", r"\[0\]step 5,a=\{0\.100000,0\.300000\}"), ("+p3 +vp8 +restart log", r"\[0\]step 5,"),
      ("+p1 +vp8 +restart log", r"\[0\]step 5,")]),
    ("megampi", "ampicxx", "megampi/test.C", [],
     [(a + " +balancer RandCentLB", "All tests passed") for a in ("+p1 +vp1", "+p1 +vp2", "+p1 +vp4", "+p2 +vp2")]),
    ("pmpi", "ampicc", "pmpi/pmpi.c", [], [("+p2", "PMPI test passed")]),
    ("stacksize", "ampicc", "stacksize/test.c", [],
     [(a, "stacksize test passed") for a in ("+p2 +vp4", "+p2 +vp2", "+p2 +vp8")]),
    ("datatype", "ampicxx", "datatype/datatype.C", [], [("+p1 +vp4", "")]),
    ("intercomm_coll", "ampicxx", "intercomm_coll/intercomm_coll.C", [],
     [(a, "All tests passed") for a in ("+p1 +vp4", "+p2 +vp2", "+p2 +vp4", "+p2 +vp8")]),
    ("privatization", "ampicxx",
     ["privatization/framework.C", "privatization/test.C", "privatization/vars-static.C"], PRIVATIZATION_FLAGS,
     [(a + " +balancer RandCentLB", "All tests passed", PRIVATIZATION_BAD)
      for a in ("+p1 +vp2", "+p1 +vp4", "+p2 +vp2", "+p2 +vp4", "+p2 +vp8")] +
     [("+p2 +vp4 +balancer RotateLB",
       r"(?s)\[\d\] About to migrate\..*\[\d\] Just migrated\..*All tests passed", PRIVATIZATION_BAD)],
     [("pieglobals-vars-shared-cxx", ["privatization/vars-shared.C"], PRIVATIZATION_FLAGS + ["-fvisibility=hidden"])]),
]


def run_charm_program(args, src, work, name, compiler, rel, flags, runs, libs=()):
    """Builds one of Charm++'s programs and runs it as its Makefile does: (passed, what)."""
    out_dir = os.path.join(work, "charm", name)
    os.makedirs(out_dir, exist_ok=True)
    prog = os.path.join(out_dir, name)
    wrapper = os.path.join(os.path.dirname(args.ampicc), compiler)
    sources = [src.path(r, "tests/ampi") for r in ([rel] if isinstance(rel, str) else rel)]
    link = []
    for lib, lib_sources, lib_flags in libs:
        build = subprocess.run([wrapper, "-O1"] + lib_flags + ["-shared", "-o", os.path.join(out_dir, f"lib{lib}.so")] +
                               [src.path(r, "tests/ampi") for r in lib_sources], capture_output=True, text=True)
        if build.returncode != 0:
            return False, f"lib{lib}.so does not build: " + build.stderr.strip()[:200]
        link += ["-L" + out_dir, "-l" + lib]
    if link:
        link.append("-Wl,-rpath,$ORIGIN")  # the Makefile's -rpath-origin
    build = subprocess.run([wrapper, "-O1"] + flags + ["-o", prog] + sources + link, capture_output=True, text=True)
    if build.returncode != 0:
        return False, "does not build: " + build.stderr.strip()[:200]
    for run in runs:
        run_args, expect = run[0], run[1]
        forbid = run[2] if len(run) > 2 else None
        try:
            r = subprocess.run([prog] + run_args.split(), capture_output=True, text=True, timeout=args.timeout,
                               cwd=out_dir)
        except subprocess.TimeoutExpired:
            return False, f"{run_args}: timed out after {args.timeout} s"
        text = r.stdout + r.stderr
        bad = re.search(forbid, text) if forbid else None
        if r.returncode != 0 or not re.search(expect, text) or bad:
            tail = " | ".join(l.strip() for l in text.strip().splitlines()[-3:])
            said = f" (printed \"{bad.group(0)}\")" if bad else ""
            return False, f"{run_args}: exit status {r.returncode}{said}: {tail[:300]}"
    return True, "passed"


def read_testlist(text):
    """(name, ranks) of each test line, in order, once each."""
    seen, tests = set(), []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or line.startswith("!"):
            continue
        parts = line.split()
        if len(parts) < 2 or not parts[1].isdigit() or parts[0] in seen:
            continue
        seen.add(parts[0])
        tests.append((parts[0], int(parts[1])))
    return tests


def read_expected(path):
    """{"dir/test": reason} of the tests expected to fail."""
    failing = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, _, reason = line.partition(" ")
            failing[name] = reason.strip()
    return failing


def run_one(args, src, work, d, name, ranks):
    """Builds and runs one test: (passed, what happened)."""
    out_dir = os.path.join(work, d)
    os.makedirs(out_dir, exist_ok=True)
    prog = os.path.join(out_dir, name)
    sources = [src.path(f"{d}/{name}.c")] + [src.path(u) for u in UTIL]
    build = subprocess.run([args.ampicc, "-w", "-O1", "-I" + os.path.join(work, "include"), "-I" + os.path.dirname(sources[1]),
                            "-I" + os.path.join(src.root, "include"), "-o", prog] + sources,
                           capture_output=True, text=True)
    if build.returncode != 0:
        first = next((l for l in build.stderr.splitlines() if "error" in l), build.stderr[:200])
        return False, "does not build: " + first.strip()
    try:
        r = subprocess.run([prog, "+vp", str(ranks), f"+p{args.pes}"], capture_output=True, text=True,
                           timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return False, f"timed out after {args.timeout} s"
    text = r.stdout + r.stderr
    if r.returncode == 0 and re.search(r"no errors", text, re.IGNORECASE):
        return True, "passed"
    tail = " | ".join(l.strip() for l in text.strip().splitlines()[-3:])
    return False, f"exit status {r.returncode}: {tail[:300]}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ampicc", required=True)
    ap.add_argument("--work", required=True, help="where the tests are built")
    ap.add_argument("--charm", default="", help="a Charm++ checkout (its tests/ampi/mpich-test)")
    ap.add_argument("--cache", default="", help="where downloaded files are kept (without --charm)")
    ap.add_argument("--commit", default=COMMIT, help="the charm commit to download (without --charm)")
    ap.add_argument("--expected", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpich_expected.txt"))
    ap.add_argument("--dirs", default=",".join(DIRS))
    ap.add_argument("--pes", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only-charm", action="store_true",
                    help="only Charm++'s own programs (CHARM_PROGRAMS), no MPICH directory (as --dirs NONE)")
    ap.add_argument("--programs", default="",
                    help="only these of Charm++'s programs (comma-separated names; default all)")
    args = ap.parse_args()
    if args.only_charm or args.dirs.strip().upper() == "NONE":
        args.dirs = ""
    programs = [p for p in CHARM_PROGRAMS if not args.programs or p[0] in args.programs.split(",")]
    if args.programs and len(programs) != len(set(args.programs.split(","))):
        ap.error(f"--programs: Charm++'s programs are {', '.join(p[0] for p in CHARM_PROGRAMS)}")
    if not args.charm and not args.cache:
        ap.error("give --charm DIR or --cache DIR")
    if args.charm and not os.path.isdir(os.path.join(args.charm, SUITE)):
        print(f"mpich_subset: {args.charm} has no {SUITE}", file=sys.stderr)
        return 2
    src = Source(args.charm, args.cache, args.commit)
    os.makedirs(os.path.join(args.work, "include"), exist_ok=True)
    with open(os.path.join(args.work, "include", "mpitestconf.h"), "w") as f:
        f.write(CONF)
    try:
        for h in HEADERS:
            src.path(h)
        tests = []
        for d in [d for d in args.dirs.split(",") if d]:
            with open(src.path(f"{d}/testlist.ampi")) as f:
                tests += [(d, n, r) for n, r in read_testlist(f.read())]
        for d, n, _ in tests:
            src.path(f"{d}/{n}.c")
        for u in UTIL:
            src.path(u)
        for p in programs:
            for rel in ([p[2]] if isinstance(p[2], str) else p[2]) + [r for lib in (p[5] if len(p) > 5 else ()) for r in lib[1]]:
                src.path(rel, "tests/ampi")
    except OSError as e:
        print(f"mpich_subset: SKIPPED: the suite's files are not here and cannot be downloaded ({e}); "
              f"give a Charm++ checkout with -DROAM_CHARM_SOURCE_DIR=... (or the environment's ROAM_CHARM_SOURCE)")
        return 77
    expected = read_expected(args.expected)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda t: (t, run_one(args, src, args.work, *t)), tests))
    shutil.rmtree(os.path.join(args.work, "charm", "chkpt", "log"), ignore_errors=True)
    for name, compiler, rel, flags, runs, *libs in programs:
        results.append((("charm", name, len(runs)),
                        run_charm_program(args, src, args.work, name, compiler, rel, flags, runs, *libs)))
        tests.append(("charm", name, len(runs)))
    passed = sum(1 for _, (ok, _) in results if ok)
    surprises = 0
    for (d, n, r), (ok, what) in results:
        name = f"{d}/{n}"
        if ok and name in expected:
            surprises += 1
            print(f"mpich_subset: {name} ({r} ranks) now PASSES; remove it from {os.path.basename(args.expected)}")
        elif not ok and name not in expected:
            surprises += 1
            print(f"mpich_subset: {name} ({r} ranks) FAILED: {what}")
        elif not ok:
            print(f"mpich_subset: {name} fails as expected ({expected[name]}): {what[:160]}")
    names = {f"{d}/{n}" for d, n, _ in tests}
    chosen = {d for d in args.dirs.split(",") if d}
    for name in expected:
        if name.split("/")[0] in chosen and name not in names:
            surprises += 1
            print(f"mpich_subset: {name} is listed in {os.path.basename(args.expected)} but is not a test of {args.dirs}")
    print(f"mpich_subset: {passed} of {len(tests)} passed, {len(tests) - passed} failed, "
          f"{surprises} unexpected outcomes")
    return 0 if surprises == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
