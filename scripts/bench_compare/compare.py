"""The statistics of scripts/bench-compare: from roam-bench's JSON lines of two
revisions to one row per case, with the slowdown and the flag.

Kept free of git, builds and processes so that tests/scripts can check the
flagging on synthetic lines.
"""
import json
import statistics

BASE, HEAD = "BASE", "HEAD"

# Every key roam-bench's --json objects carry (bench/report.hpp); "bytes" is
# optional, the others must be there for a line to count as a result.
REQUIRED_KEYS = ("bench", "case", "pes", "metric", "value")

# Units that make a metric a rate: `<things>_per_s[_...]`.
RATE_UNITS = ("s", "sec", "second")


def is_rate(metric):
    """True when higher is better for `metric`.

    The rule: a metric is a rate when its name has `per_<second>` as whole
    words (MB_per_s, msgs_per_s_per_pe, chares_per_s, inserts_per_s). Every
    other metric is a cost, where lower is better: times (us, ms, one_way_us,
    us_per_op) and memory (bytes_per_thread, bytes_per_task). A new metric
    needs no change here as long as its name follows that convention.
    """
    words = metric.split("_")
    return any(words[i] == "per" and words[i + 1] in RATE_UNITS for i in range(len(words) - 1))


def parse_lines(text):
    """The result objects in roam-bench's output; any other line is skipped,
    since the runtime may print notices between them."""
    records = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and all(k in obj for k in REQUIRED_KEYS):
            records.append(obj)
    return records


def case_key(record):
    """What identifies a case across runs and revisions. pingpong's sizes share
    a case name and differ in bytes; its MB_per_s lines differ in metric."""
    return (record["bench"], record["case"], int(record["pes"]), record.get("bytes"), record["metric"])


def collect(runs):
    """Samples per case and revision, in the order cases first appear.

    `runs` is a sequence of (revision label, records of one roam-bench run);
    each record's "value" (the median of that run's repetitions) is one sample.
    """
    samples = {}
    for label, records in runs:
        for rec in records:
            samples.setdefault(case_key(rec), {BASE: [], HEAD: []})[label].append(float(rec["value"]))
    return samples


def slowdown(base, head, metric):
    """How many times slower HEAD is than BASE: above 1 is slower, whichever
    way the metric points (HEAD/BASE for costs, BASE/HEAD for rates). None when
    a median is not positive, as a ratio of those means nothing."""
    if base is None or head is None or base <= 0 or head <= 0:
        return None
    return base / head if is_rate(metric) else head / base


def compare(samples, threshold):
    """One row per case. `threshold` is a fraction: 0.15 flags a case whose
    HEAD median is more than 15% slower than BASE's.

    status: "SLOWER" (flagged), "faster" (as far beyond the threshold the
    other way), "" (within it), "only in BASE" / "only in HEAD" (the case
    exists in one revision: never flagged), "n/a" (no meaningful ratio).
    """
    rows = []
    for (bench, case, pes, nbytes, metric), by_rev in samples.items():
        base_med = statistics.median(by_rev[BASE]) if by_rev[BASE] else None
        head_med = statistics.median(by_rev[HEAD]) if by_rev[HEAD] else None
        ratio = slowdown(base_med, head_med, metric)
        if head_med is None:
            status = "only in BASE"
        elif base_med is None:
            status = "only in HEAD"
        elif ratio is None:
            status = "n/a"
        elif ratio > 1 + threshold:
            status = "SLOWER"
        elif ratio < 1 / (1 + threshold):
            status = "faster"
        else:
            status = ""
        rows.append({
            "bench": bench, "case": case, "pes": pes, "bytes": nbytes, "metric": metric,
            "better": "higher" if is_rate(metric) else "lower",
            "base_median": base_med, "head_median": head_med,
            "base_samples": by_rev[BASE], "head_samples": by_rev[HEAD],
            "slowdown": ratio, "status": status,
        })
    return rows


def flagged(rows):
    return [r for r in rows if r["status"] == "SLOWER"]
