#!/usr/bin/env python3
"""Global Arrays built from source against roam's ARMCI, and GA's own C and
C++ test programs run as Adaptive MPI virtual ranks (issue #39's aim).

GA is configured with its external-ARMCI runtime (--with-armci) and MPI,
compiled by roam's ampicc / ampicxx, once into --work; a later run reuses
that build while GA's source, roam's headers (armci.h, mpi.h, ...), ampicc
and the ARMCI functions the loader exports are unchanged (a stamp says
which).
Without GA's source (--ga-source or ROAM_GA_SOURCE), or without the tools
to build it (autotools for a git checkout, make, nm, a C compiler), the run
is reported skipped (exit status 77) saying why.

  ga_suite.py --ga-source DIR --ampicc PATH --loader FILE --work DIR
              [--runs "+p1 +vp 4;+p2 +vp 4"] [--launcher CMD] [--timeout 120]
              [--slow] [--programs a,b] [--jobs 2]

The programs are the C and C++ ones of GA's `make check` (Makefile.am's
GLOBAL_PARALLEL_TESTS and CXX_PARALLEL_TESTS). Each runs once per
configuration (--runs, separated by ';'), with --launcher prepended (e.g.
"roamrun -n 2"), in a directory of its own; it passes when it exits with
status 0, prints GA's success text for it, and prints none of GA's failure
texts. Programs that take minutes run only with --slow; those that cannot
run on roam are listed with the reason.

How GA is built (the commands are printed with --show-build):
- configure is told it cross-compiles (--build != --host): ampicc's
  programs run under the roam-ampi loader, and a configure test program
  without mpi.h has no main the loader can run;
- configure's link tests are made honest: ampicc links a shared object in
  which anything may stay undefined, so every AC_SEARCH_LIBS / function
  check would succeed. While configure runs, the wrappers in WORK/probe link
  with -Wl,--no-undefined against a stub library holding every function the
  loader exports (nm -D), so a function roam lacks (armci_notify, say) is
  found missing, as with a real library; the build itself uses plain ampicc.
  No ARMCI library is linked: the loader carries ARMCI;
- Fortran is disabled (--disable-f77): GA's Fortran tests call MPI from
  Fortran (mpif.h, mpi_init), which roam's Adaptive MPI does not provide;
- MPI_Comm_c2f, which GA's Fortran-interface C code calls and roam's mpi.h
  lacks, is made the identity (roam's MPI_Comm is an int) by CPPFLAGS.
"""
import argparse
import concurrent.futures
import fcntl
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

# What changes the build (with the inputs' fingerprints in the stamp).
RECIPE = 1
CFLAGS = "-O2"
# MPI_Comm_c2f(c) becomes (c): roam's MPI_Comm is an int already (a macro
# without parentheses: GA's Makefiles pass CPPFLAGS to the shell unquoted).
CPPFLAGS = "-DMPI_Comm_c2f="

# Every run gets this: GA's tests allocate tens of MiB per rank (MA_init
# heaps, GA_Initialize_ltd limits), more than isomalloc's default 64 MiB slot
# (heap and stack of a rank) holds.
RUN_EXTRA = "+isomalloc_slot 512M"

OK_ALL = r"All tests successful"
# (program, the text it prints when it succeeded), in GA's Makefile.am order
# (C, then C++, then the slow ones).
PROGRAMS = [
    ("global/testing/elempatch", OK_ALL),
    ("global/testing/tiled_irreg_test", r"\nSuccess"),
    ("global/testing/getmem", r"\nSuccess"),
    ("global/testing/rand", r"Min: [0-9.]+ Max: [0-9.]+"),
    ("global/testing/mtest", r"\nSuccess"),
    ("global/testing/mulmatpatchc", OK_ALL),
    ("global/testing/normc", OK_ALL),
    ("global/testing/matrixc", r"Terminating \.\."),
    ("global/testing/ntestc", OK_ALL),
    ("global/testing/nbtestc", r"\nSuccess"),
    ("global/testing/ntestfc", OK_ALL),
    ("global/testing/patch_enumc", OK_ALL),
    ("global/testing/print", OK_ALL),
    ("global/testing/testc", OK_ALL),
    ("global/testing/testmult", OK_ALL),
    ("global/testing/testmultrect", OK_ALL),
    ("global/testing/gemmtest", r"\nSuccess"),
    ("global/testing/read_only", r"Regular array test succeeded"),
    ("global/testing/ga-mpi", r"Terminating \.\."),
    ("global/testing/lock", r"0: MPI_Finalize"),
    ("global/testing/simple_groups_commc", OK_ALL),
    ("ga++/testing/elempatch", r"Terminating"),
    ("ga++/testing/mtest", r"Terminating"),
    ("ga++/testing/ntestc", r"Terminating"),
    ("ga++/testing/testc", r"Terminating\.\.\."),
    ("ga++/testing/testmult", r"Successfull"),
    ("ga++/testing/create_irreg_test", r"GA create successful"),
    # Minutes each with 4 ranks on 2 cores (ARMCI-MPI over Open MPI is as
    # slow on packc and scan_addc): --slow.
    ("global/testing/packc", OK_ALL),
    ("global/testing/unpackc", OK_ALL),
    ("global/testing/scan_addc", OK_ALL),
    ("global/testing/scan_copyc", OK_ALL),
    ("global/testing/j_iter", r"Bin center"),
    ("global/testing/testmatmultc", OK_ALL),
    ("global/testing/laplace", r"Iteration: \d+"),
    ("global/testing/kaczmarz", r"Iteration: \d+"),
    ("global/testing/sprs_test", r"Sparse matrix tests complete|Test only runs if built with 8-byte integers"),
    # C, though GA's `make check` runs it only when it has Fortran.
    ("global/testing/perf2", OK_ALL),
]
SLOW = {"global/testing/" + n: scale for n, scale in (
    ("packc", 2), ("unpackc", 2), ("scan_addc", 3), ("scan_copyc", 2), ("j_iter", 2), ("testmatmultc", 5),
    ("laplace", 10), ("kaczmarz", 10), ("sprs_test", 10), ("perf2", 2))}
# Run only with these numbers of ranks, and why.
RANKS = {
    "ga++/testing/create_irreg_test": ({4}, "needs exactly 4 ranks (it says so and does nothing else)"),
    # With 2, 3 or 8 ranks GA_Zero_diagonal and GA_Scale_rows report the same
    # mismatches (same elements, same values) on GA 5.8.2 over ARMCI-MPI and
    # Open MPI (Debian's libglobalarrays-dev) as here: GA's, not roam's.
    "global/testing/matrixc": ({1, 4}, "GA's own mismatches with other than 1 or 4 ranks (with ARMCI-MPI too)"),
}
# Programs of GA's `make check` not run here, and why.
LEFT_OUT = {
    "global/testing/comm_init": "GA_Initialize_comm over half of MPI_COMM_WORLD: roam's ARMCI runs over all of "
                                "MPI_COMM_WORLD only (ARMCI_Init_mpi_comm stops the job saying so; with ARMCI-MPI "
                                "the test body never runs either: GA takes its 0 for a failure)",
    "global/testing/thread_perf_contig": "OpenMP: libgomp, loaded with the program, aborts in roam-ampi "
                                         "(goacc_register assertion: its constructors run again in the rank's copy)",
    "global/testing/thread_perf_strided": "OpenMP (as thread_perf_contig)",
    "global/testing/threadsafec": "OpenMP (as thread_perf_contig)",
    "ga++/testing/threadsafecpp": "OpenMP (as thread_perf_contig)",
    "ma/test-coalesce": "a serial program without MPI: no mpi.h, so no main the roam-ampi loader can run",
    "ma/test-inquire": "a serial program without MPI (as ma/test-coalesce)",
    "global/testing/cache_test": "a plain-C 4096x4096 integer matrix product, twice, with a cache-hostile inner "
                                 "loop: over 20 minutes with 4 ranks on one core (up to 1024x1024 it passes in "
                                 "3.5 s on 2 PEs)",
    "global/testing/ga_lu": "needs LAPACK, which GA's configure does not look for without Fortran",
    "the Fortran programs (test, ngatest, testmatmult, nga-*, ... 40 with ma/testf and boltz)":
        "GA is configured --disable-f77: GA's Fortran tests call MPI from Fortran (mpif.h, mpi_init), "
        "which roam's Adaptive MPI does not provide",
}
# Known roam bugs: these must fail after printing their success text (a pass
# means the bug is fixed: take the program out of this list).
# Programs that fail because of a roam bug not yet fixed: program -> why.
# (Session 33 fixed the last: C++ main's implicit `return 0`, lost while
# mpi.h renamed main; ampicc now keeps the program's main.)
KNOWN_ROAM_BUGS: dict[str, str] = {}
# What GA's tests print when something is wrong (and what roam prints when a
# rank stops).
FAILURE = re.compile(r"\bFAIL(S|ED)?\b|\bfails\b|\bfailed\b|not OK|[Mm]ismatch|ARMCI_Error|MPI_Abort|"
                     r"uncaught exception|Segmentation|Assertion")


def skip(why):
    print(f"ga_suite: SKIPPED: {why}", flush=True)
    sys.exit(77)


def sha(data):
    return hashlib.sha256(data if isinstance(data, bytes) else data.encode()).hexdigest()


def file_sha(path):
    with open(path, "rb") as f:
        return sha(f.read())


def tree_fingerprint(root):
    """Every file's path, size and modification time (a changed checkout is rebuilt)."""
    h = hashlib.sha256()
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in (".git", "autom4te.cache"))
        for f in sorted(files):
            p = os.path.join(d, f)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            h.update(f"{os.path.relpath(p, root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def loader_exports(loader):
    r = subprocess.run(["nm", "-D", "--defined-only", loader], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"ga_suite: nm -D {loader} failed: {r.stderr.strip()}")
    out = []
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and "@" not in parts[2]:  # versioned ones are libc's / libstdc++'s own
            out.append((parts[1], parts[2]))
    return sorted(out)


def header_fingerprint(ampicc, work):
    """The roam headers ampicc compiles GA with (mpi.h, armci.h, message.h, ...)."""
    os.makedirs(work, exist_ok=True)
    probe = os.path.join(work, "headers.c")
    with open(probe, "w") as f:
        f.write("#include <armci.h>\n#include <armcix.h>\n#include <message.h>\n")
    r = subprocess.run([ampicc, "-M", probe], capture_output=True, text=True, cwd=work)
    if r.returncode != 0:
        sys.exit(f"ga_suite: {ampicc} cannot compile armci.h: {r.stderr.strip()[:300]}")
    files = [f for f in r.stdout.replace("\\\n", " ").split()[1:] if f != probe and not f.startswith("/usr/")]
    return {os.path.realpath(f): file_sha(f) for f in sorted(set(files))}


def write_probe(work, loader, ampicc, ampicxx):
    """WORK/probe: the stub library of the loader's exports and the wrappers
    that link against it while ROAM_GA_CONFIGURING=1 (configure only)."""
    d = os.path.join(work, "probe")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "exports.c"), "w") as f:
        f.write("/* Link-time stand-ins for what roam-ampi exports (configure's link tests only). */\n")
        for kind, name in loader_exports(loader):
            f.write(f"void {name}(void) {{}}\n" if kind in "TtWwiI" else f"char {name}[64];\n")
    r = subprocess.run(["cc", "-w", "-fno-builtin", "-shared", "-fPIC", "-o", os.path.join(d, "libroam_exports.so"),
                        os.path.join(d, "exports.c")], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"ga_suite: the exports stub does not build: {r.stderr.strip()[:300]}")
    wrappers = {}
    for name, real in (("ampicc", ampicc), ("ampicxx", ampicxx)):
        if real is None:
            continue
        w = os.path.join(d, name)
        with open(w, "w") as f:
            f.write(f"""#!/bin/sh
# {name} for Global Arrays (libs/armci/tests/ga_suite.py). While configure
# runs (ROAM_GA_CONFIGURING=1), a program is linked with -Wl,--no-undefined
# against the loader's exports, so configure finds missing what roam lacks.
[ "${{ROAM_GA_CONFIGURING:-}}" = 1 ] || exec {shlex.quote(real)} "$@"
for a in "$@"; do
  case "$a" in -c|-S|-E|-M|-MM|-shared) exec {shlex.quote(real)} "$@" ;; esac
done
exec {shlex.quote(real)} "$@" -Wl,--no-undefined -L{shlex.quote(d)} -lroam_exports
""")
        os.chmod(w, 0o755)
        wrappers[name] = w
    return wrappers


def run_logged(cmd, log, cwd, env=None, what="", fatal=True):
    t0 = time.monotonic()
    with open(log, "w") as f:
        f.write("$ " + " ".join(shlex.quote(c) for c in cmd) + "\n")
        f.flush()
        r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=cwd, env=env)
    dt = time.monotonic() - t0
    if r.returncode != 0 and not fatal:
        print(f"ga_suite: {what} failed in part (exit status {r.returncode}; {log})", flush=True)
    elif r.returncode != 0:
        with open(log) as f:
            tail = f.read().splitlines()[-15:]
        print(f"ga_suite: {what or cmd[0]} failed (exit status {r.returncode}; {log}):", file=sys.stderr)
        for line in tail:
            print("  " + line, file=sys.stderr)
        sys.exit(1)
    print(f"ga_suite: {what} took {dt:.0f} s", flush=True)
    return dt


def configure_command(src, wrappers, cxx):
    machine = platform.machine() or "x86_64"
    cmd = [os.path.join(src, "configure"), "--no-recursion",
           # "cross-compiling": configure must not run ampicc's programs
           f"--build={machine}-pc-linux-gnu", f"--host={machine}-roam-linux-gnu",
           "--with-armci", "--disable-f77", "--enable-cxx" if cxx else "--disable-cxx",
           f"MPICC={wrappers['ampicc']}", "CC=cc", f"CFLAGS={CFLAGS}", f"CPPFLAGS={CPPFLAGS}"]
    if cxx:
        cmd += [f"MPICXX={wrappers['ampicxx']}", "CXX=c++", f"CXXFLAGS={CFLAGS}"]
    return cmd


def build(args, programs, cxx):
    """Configures and builds GA into WORK/build unless the stamp says it is
    there for these inputs; then makes the test programs (make: up to date)."""
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    lock = open(os.path.join(work, ".lock"), "w")
    fcntl.flock(lock, fcntl.LOCK_EX)  # a concurrent run (the tcp test) waits for the build
    inputs = {
        "recipe": RECIPE, "cflags": CFLAGS, "cppflags": CPPFLAGS, "cxx": cxx,
        "ga_source": os.path.realpath(args.ga_source), "ga_tree": tree_fingerprint(args.ga_source),
        "ampicc": file_sha(args.ampicc), "ampicxx": file_sha(args.ampicxx) if cxx else "",
        "headers": header_fingerprint(args.ampicc, os.path.join(work, "probe")),
        # configure's probes of the loader that GA's build depends on: ARMCI's
        # (a new MPI function in the loader does not change GA's build)
        "loader_armci": sha(repr([e for e in loader_exports(args.loader)
                                  if re.match(r"P?ARMCIX?_|armci_", e[1])])),
    }
    stamp = os.path.join(work, "stamp.json")
    bdir = os.path.join(work, "build")
    old = None
    if os.path.exists(stamp):
        with open(stamp) as f:
            old = json.load(f)
    if old != inputs:
        if old is not None:
            changed = sorted(k for k in inputs if old.get(k) != inputs.get(k))
            print(f"ga_suite: rebuilding GA ({', '.join(changed)} changed)", flush=True)
        if not os.path.exists(os.path.join(args.ga_source, "configure")):
            missing = [t for t in ("autoreconf", "autoconf", "automake", "libtoolize", "m4")
                       if shutil.which(t) is None]
            if missing:
                skip(f"{args.ga_source} is a git checkout without configure, and {', '.join(missing)} "
                     f"{'is' if len(missing) == 1 else 'are'} not installed "
                     "(Debian: apt-get install autoconf automake libtool)")
        if os.path.exists(stamp):
            os.remove(stamp)
        src = os.path.join(work, "src")
        for d in (src, bdir):
            shutil.rmtree(d, ignore_errors=True)
        t0 = time.monotonic()
        # GA's tree is copied: autoreconf and configure never write into the
        # given checkout.
        shutil.copytree(args.ga_source, src, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        if not os.path.exists(os.path.join(src, "configure")):
            run_logged(["autoreconf", "-fi"], os.path.join(work, "autoreconf.log"), src, what="autoreconf")
        wrappers = write_probe(work, args.loader, args.ampicc, args.ampicxx if cxx else None)
        os.makedirs(bdir)
        env = dict(os.environ, ROAM_GA_CONFIGURING="1")
        run_logged(configure_command(src, wrappers, cxx), os.path.join(work, "configure.log"), bdir, env,
                   what="configure")
        check_configuration(bdir)
        # `make` (all): the libraries, after the headers they generate first
        run_logged(["make", f"-j{args.build_jobs}"], os.path.join(work, "make-lib.log"), bdir,
                   what="make (GA's libraries)")
        with open(stamp, "w") as f:
            json.dump(inputs, f, indent=1)
        print(f"ga_suite: GA configured and built in {time.monotonic() - t0:.0f} s", flush=True)
    else:
        print(f"ga_suite: reusing GA's build in {bdir}", flush=True)
    targets = [p + ".x" for p in programs]
    # (a program that does not build is reported with the runs)
    run_logged(["make", f"-j{args.build_jobs}", "-k"] + targets, os.path.join(work, "make-tests.log"), bdir,
               what="make (test programs)", fatal=False)
    fcntl.flock(lock, fcntl.LOCK_UN)
    return bdir


def check_configuration(bdir):
    """What configure decided about ARMCI, printed (and the external ARMCI
    runtime checked: GA must not have fallen back to its own)."""
    with open(os.path.join(bdir, "config.h")) as f:
        text = f.read()
    found = dict(re.findall(r"#define (HAVE_ARMCI_\w+) (\d)", text))
    print("ga_suite: configure found in roam's ARMCI: " + ", ".join(f"{k[5:]}={v}" for k, v in sorted(found.items())),
          flush=True)
    with open(os.path.join(bdir, "config.log")) as f:
        if "ARMCI_NETWORK_ARMCI_TRUE=''" not in f.read():
            sys.exit("ga_suite: configure did not choose the external ARMCI runtime (see config.log)")


def ranks_of(run_args):
    m = re.search(r"\+vp\s+(\d+)", run_args)
    return int(m.group(1)) if m else None


def run(args, bdir, name, success, run_args):
    prog = os.path.join(bdir, name + ".x")
    slug = re.sub(r"[^A-Za-z0-9]+", "_", (args.launcher + " " + run_args).strip()).strip("_")
    cwd = os.path.join(os.path.abspath(args.work), "runs", name.replace("/", "_"), slug)
    shutil.rmtree(cwd, ignore_errors=True)
    os.makedirs(cwd)  # laplace, kaczmarz and j_iter write files where they run
    cmd = shlex.split(args.launcher) + [prog] + run_args.split() + RUN_EXTRA.split()
    timeout = args.timeout * SLOW.get(name, 1)
    t0 = time.monotonic()
    # A session of its own: on a timeout the whole of it goes (roamrun's
    # processes too), not only the launcher.
    with open(os.path.join(cwd, "output.txt"), "w+", errors="replace") as out:
        out.write(" ".join(shlex.quote(c) for c in cmd) + "\n")
        out.flush()
        start = out.tell()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=cwd, start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            rc = None
        dt = time.monotonic() - t0
        out.seek(start)
        text = out.read()
        out.write(f"\n(exit status {rc}, {dt:.1f} s)\n")
    if rc is None:
        return False, f"timed out after {timeout} s", text
    bad = FAILURE.search(text)
    if rc != 0:
        why = f"exit status {rc}"
    elif bad:
        why = "printed " + repr(text[max(0, bad.start() - 60):bad.end() + 60].strip())
    elif success and not re.search(success, text):
        why = f"exit status 0 but no {success!r} in its output"
    else:
        return True, f"passed ({dt:.1f} s)", text
    return False, why, text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ga-source", default=os.environ.get("ROAM_GA_SOURCE", ""),
                    help="a Global Arrays checkout or release (default: $ROAM_GA_SOURCE)")
    ap.add_argument("--ampicc", required=True)
    ap.add_argument("--ampicxx", default="", help="(default: ampicxx beside --ampicc)")
    ap.add_argument("--loader", required=True, help="the roam-ampi loader (its exports are what configure may find)")
    ap.add_argument("--work", required=True)
    ap.add_argument("--runs", action="append", default=[],
                    help="configurations, ';'-separated, or the option repeated "
                         "(default: +p1 +vp 1;+p1 +vp 4;+p2 +vp 4)")
    ap.add_argument("--launcher", default="")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per program run (slow ones: a multiple)")
    ap.add_argument("--slow", action="store_true", help="also the programs that take minutes")
    ap.add_argument("--programs", default="", help="only these (comma-separated, e.g. global/testing/testc)")
    ap.add_argument("--jobs", type=int, default=1, help="program runs at once")
    ap.add_argument("--build-jobs", type=int, default=2)
    ap.add_argument("--show-build", action="store_true", help="print the configure command and exit")
    args = ap.parse_args()

    if not args.ga_source:
        skip("no Global Arrays source: give --ga-source DIR or set ROAM_GA_SOURCE "
             "(CMake: -DROAM_GA_SOURCE_DIR=DIR; a checkout of github.com/GlobalArrays/ga)")
    if not os.path.isfile(os.path.join(args.ga_source, "global", "testing", "testc.c")):
        skip(f"{args.ga_source} is not a Global Arrays source tree (no global/testing/testc.c)")
    for tool in ("make", "nm", "cc"):
        if shutil.which(tool) is None:
            skip(f"{tool} is not installed (needed to build Global Arrays)")
    for f in (args.ampicc, args.loader):
        if not os.access(f, os.X_OK):
            skip(f"{f} does not exist (build roam's Adaptive MPI first)")
    args.ampicc = os.path.abspath(args.ampicc)
    args.loader = os.path.abspath(args.loader)
    args.ampicxx = os.path.abspath(args.ampicxx or os.path.join(os.path.dirname(args.ampicc), "ampicxx"))
    cxx = os.access(args.ampicxx, os.X_OK) and shutil.which("c++") is not None
    launcher = shlex.split(args.launcher)
    if launcher and "/" in launcher[0]:  # programs run in directories of their own
        launcher[0] = os.path.abspath(launcher[0])
    args.launcher = " ".join(shlex.quote(w) for w in launcher)

    wanted = set(filter(None, args.programs.split(",")))
    known = {p for p, _ in PROGRAMS}
    if wanted - known:
        ap.error("--programs: the programs are " + ", ".join(p for p, _ in PROGRAMS))
    left_out = dict(LEFT_OUT)
    programs = []
    for p, success in PROGRAMS:
        if wanted and p not in wanted:
            continue
        if p.startswith("ga++/") and not cxx:
            left_out[p] = f"no C++ ({args.ampicxx} or c++ missing)"
        elif p in SLOW and not args.slow and not wanted:
            left_out[p] = "takes minutes (--slow runs it)"
        else:
            programs.append((p, success))
    if args.show_build:
        work = os.path.abspath(args.work)
        wrappers = {"ampicc": os.path.join(work, "probe", "ampicc"), "ampicxx": os.path.join(work, "probe", "ampicxx")}
        print(f"cp -r {shlex.quote(os.path.abspath(args.ga_source))} {work}/src")
        print(f"(cd {work}/src && autoreconf -fi)    # a git checkout: no configure yet")
        print(f"# {work}/probe: libroam_exports.so (a stub of every function `nm -D {args.loader}` lists) and the "
              "ampicc/ampicxx wrappers that link against it while ROAM_GA_CONFIGURING=1")
        print(f"mkdir {work}/build && cd {work}/build")
        print("ROAM_GA_CONFIGURING=1 " + " ".join(shlex.quote(c) for c in configure_command(
            os.path.join(work, "src"), wrappers, cxx)))
        print(f"make -j{args.build_jobs}")
        print(f"make -j{args.build_jobs} -k " + " ".join(p + ".x" for p, _ in programs))
        return 0

    bdir = build(args, [p for p, _ in programs], cxx)
    runs = [r.strip() for spec in (args.runs or ["+p1 +vp 1;+p1 +vp 4;+p2 +vp 4"]) for r in spec.split(";")
            if r.strip()]
    failed, passed, xfailed, skipped = [], 0, 0, []
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        jobs = []
        for name, success in programs:
            if not os.path.exists(os.path.join(bdir, name + ".x.so")):
                failed.append((name, "-", "does not build (see make-tests.log)"))
                print(f"FAIL {name}: does not build (see {os.path.join(args.work, 'make-tests.log')})", flush=True)
                continue
            for r in runs:
                if name in RANKS and ranks_of(r) not in RANKS[name][0]:
                    skipped.append((name, r, RANKS[name][1]))
                    continue
                jobs.append((name, success, r, pool.submit(run, args, bdir, name, success, r)))
        where = args.launcher + " " if args.launcher else ""
        for name, success, r, fut in jobs:
            ok, what, text = fut.result()
            if name in KNOWN_ROAM_BUGS:
                if ok:
                    print(f"FAIL {name} [{where}{r}]: passed, but it is listed as a known roam bug "
                          f"(fixed? take it out of KNOWN_ROAM_BUGS)", flush=True)
                    failed.append((name, r, "unexpected pass"))
                elif re.search(success, text):  # its checks all ran: the failure came after them
                    print(f"xfail {name} [{where}{r}]: {what} after its end (a known roam bug, below)", flush=True)
                    xfailed += 1
                else:
                    print(f"FAIL {name} [{where}{r}]: {what}, before its end (not the known roam bug)", flush=True)
                    failed.append((name, r, what))
                continue
            print(f"{'ok  ' if ok else 'FAIL'} {name} [{where}{r}]: {what}", flush=True)
            if ok:
                passed += 1
            else:
                failed.append((name, r, what))
                tail = [l for l in text.strip().splitlines() if l.strip()][-6:]
                for line in tail:
                    print("       | " + line[:200], flush=True)
    print(f"ga_suite: runs took {time.monotonic() - t0:.0f} s")
    for name, r, why in skipped:
        print(f"skipped {name} [{r}]: {why}")
    shown = {n: why for n, why in left_out.items() if not wanted or n in wanted}
    for name, why in shown.items():
        print(f"left out {name}: {why}")
    for name in sorted({n for n, _ in programs} & KNOWN_ROAM_BUGS.keys()):
        print(f"known roam bug {name}: {KNOWN_ROAM_BUGS[name]}")
    print(f"ga_suite: {passed} passed, {len(failed)} failed, {xfailed} known roam bugs (failed as expected), "
          f"{len(skipped)} runs skipped, {len(shown)} programs left out")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
