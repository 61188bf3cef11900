"""Running roam-bench for scripts/bench-compare: the benches a binary knows,
and the runs of both revisions, alternated so that machine noise (other
processes on the shared cores) falls on both alike."""
import os
import re
import signal
import subprocess
import sys
import time

from .compare import BASE, HEAD, parse_lines

# What roam-bench knew when this script was written; used only when a
# binary's usage line cannot be read.
KNOWN_BENCHES = ("pingpong", "empty", "create", "fib", "coll", "migrate", "thread", "flow", "idle")
NOT_BENCHES = ("all", "noop")


def benches_of(binary):
    """The benches `binary` runs, read from the usage line it prints for an
    unknown argument, so that a bench added or removed later is seen."""
    try:
        out = subprocess.run([binary, "--list-benches-via-usage", "+p", "1"], capture_output=True, text=True,
                             timeout=60)
        text = out.stdout + out.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RuntimeError("cannot run %s: %s" % (binary, e))
    m = re.search(r"usage: roam-bench \[([\w|]+)\]", text)
    if not m:
        print("bench-compare: warning: no usage line from %s; assuming the benches %s" %
              (binary, ",".join(KNOWN_BENCHES)), file=sys.stderr)
        return list(KNOWN_BENCHES)
    return [b for b in m.group(1).split("|") if b not in NOT_BENCHES]


def run_once(binary, bench, pes, reps, case, runtime_args, timeout):
    """One roam-bench run. Never raises for the run's own failure: a crash, a
    non-zero exit or a timeout is recorded with what it printed, and the
    results printed before it still count."""
    cmd = [binary, bench, "--json", "--reps", str(reps)]
    if case:
        cmd += ["--case", case]
    cmd += ["+p", str(pes)] + list(runtime_args)
    t0 = time.monotonic()
    # A session of its own, so that a timeout ends the run's whole process group.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        status = proc.returncode
        error = None if status == 0 else "exit status %d" % status
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        status = None
        error = "no result after %g s (killed)" % timeout
    except BaseException:  # Ctrl-C: do not leave the run behind
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    if status is not None and status < 0:
        error = "killed by signal %d" % -status
    return {
        "command": cmd, "exit": status, "error": error, "seconds": round(time.monotonic() - t0, 3),
        "records": parse_lines(out), "stderr_tail": err.splitlines()[-10:],
    }


def alternate(binaries, benches, pes_list, rounds, reps, case, runtime_args, timeout):
    """Every (round, PE count, bench) runs BASE then HEAD, back to back.

    `binaries` maps BASE and HEAD to (path, benches that binary has); a bench
    one revision lacks runs on the other only. Returns the runs in the order
    they ran, each labelled with its revision, round, bench and PE count.
    """
    plan = [(r, pes, bench, label)
            for r in range(1, rounds + 1) for pes in pes_list for bench in benches for label in (BASE, HEAD)
            if bench in binaries[label][1]]
    runs = []
    for i, (r, pes, bench, label) in enumerate(plan, 1):
        run = run_once(binaries[label][0], bench, pes, reps, case, runtime_args, timeout)
        run.update({"revision": label, "round": r, "bench": bench, "pes": pes})
        runs.append(run)
        note = "" if run["error"] is None else "  FAILED: " + run["error"]
        print("[%*d/%d] round %d/%d  %-8s +p%-3d %s  %6.1f s%s" %
              (len(str(len(plan))), i, len(plan), r, rounds, bench, pes, label, run["seconds"], note),
              file=sys.stderr, flush=True)
    return runs
