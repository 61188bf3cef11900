"""The comparison as text: an aligned table for the terminal and a markdown
table to paste into docs/perf.md."""

COLUMNS = ("bench", "case", "bytes", "pes", "metric", "BASE", "HEAD", "slowdown", "flag")


def number(x):
    """Four significant digits; large values with "k", "M" or "G" (as
    docs/perf.md writes them) rather than in exponent form."""
    if x is None:
        return "-"
    if abs(x) >= 1e9:
        return "%.4g G" % (x / 1e9)
    if abs(x) >= 1e6:
        return "%.4g M" % (x / 1e6)
    if abs(x) >= 1e4:  # below, "%.4g" shows every digit anyway
        return "%.4g k" % (x / 1e3)
    return "%.4g" % x


def spread(median, samples):
    """"median [min .. max]" when there is more than one sample."""
    if median is None:
        return "-"
    if len(samples) < 2:
        return number(median)
    return "%s [%s .. %s]" % (number(median), number(min(samples)), number(max(samples)))


def cells(row, with_spread):
    base = spread(row["base_median"], row["base_samples"]) if with_spread else number(row["base_median"])
    head = spread(row["head_median"], row["head_samples"]) if with_spread else number(row["head_median"])
    ratio = "-" if row["slowdown"] is None else "%.2f" % row["slowdown"]
    nbytes = "-" if row["bytes"] is None else str(row["bytes"])
    return (row["bench"], row["case"], nbytes, str(row["pes"]), row["metric"], base, head, ratio, row["status"])


def text(rows):
    lines = [COLUMNS] + [cells(r, False) for r in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(COLUMNS))]
    right = {2, 3, 5, 6, 7}  # numbers line up on the right
    out = []
    for line in lines:
        parts = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(line, widths))]
        out.append("  ".join(parts).rstrip())
    return "\n".join(out) + "\n"


def markdown(rows):
    out = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        out.append("| " + " | ".join(c if c else " " for c in cells(r, True)) + " |")
    return "\n".join(out) + "\n"
