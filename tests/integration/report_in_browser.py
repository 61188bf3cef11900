#!/usr/bin/env python3
"""The HTML report of roam-trace, opened in headless Chromium.

report_in_browser.py CHROMIUM ROAM_TRACE PROGRAM WORKDIR

Traces PROGRAM (jacobi2d on 2 PEs), writes its report, and opens it in
Chromium: the test fails on any JavaScript console error or uncaught
exception, when the page script did not run to its end (body data-ready),
and when the charts are blank (the screenshot must hold enough pixels of the
first two series' colours). It first checks itself: the same page with a
planted error must be refused.
"""
import os
import shutil
import struct
import subprocess
import sys
import zlib

SERIES = [(0x4e, 0x79, 0xa7), (0xf2, 0x8e, 0x2b)]  # the report's first two palette colours
MIN_PIXELS = 2000


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)


def png_pixels(path):
    """RGBA or RGB rows of an 8-bit non-interlaced PNG (what Chromium writes)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError("unsupported PNG layout")
            bpp = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return rows, bpp


def count_colour(rows, bpp, rgb):
    n = 0
    for line in rows:
        for i in range(0, len(line), bpp):
            if abs(line[i] - rgb[0]) < 8 and abs(line[i + 1] - rgb[1]) < 8 and abs(line[i + 2] - rgb[2]) < 8:
                n += 1
    return n


def problems_of(chromium, html, workdir):
    """What is wrong with the page in Chromium (an empty list: nothing)."""
    shot = os.path.join(workdir, "shot.png")
    if os.path.exists(shot):
        os.remove(shot)
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--enable-logging=stderr",
             "--v=0", "--virtual-time-budget=10000", "--window-size=1200,2400",
             "--user-data-dir=" + os.path.join(workdir, "profile")]
    url = "file://" + os.path.abspath(html)
    shown = run(flags + ["--screenshot=" + shot, url])
    dom = run(flags + ["--dump-dom", url])
    problems = []
    for line in (shown.stderr + dom.stderr).splitlines():
        if "CONSOLE" in line or "Uncaught" in line:
            problems.append("console: " + line.strip())
    if 'data-ready="1"' not in dom.stdout:
        problems.append("the page script did not run to its end")
    if not os.path.exists(shot):
        problems.append("no screenshot (chromium exit %d)" % shown.returncode)
    else:
        rows, bpp = png_pixels(shot)
        for rgb in SERIES:
            n = count_colour(rows, bpp, rgb)
            if n < MIN_PIXELS:
                problems.append("blank chart: %d pixels of #%02x%02x%02x (want %d)" % ((n,) + rgb + (MIN_PIXELS,)))
    return problems


def main():
    chromium, roam_trace, program, workdir = sys.argv[1:5]
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    trace = os.path.join(workdir, "trace")
    r = run([program, "+p2", "+trace=" + trace, "30", "4", "400", "1e-3"])
    if r.returncode != 0:
        sys.exit("traced run failed: " + r.stdout + r.stderr)
    html = os.path.join(workdir, "report.html")
    r = run([roam_trace, "report", trace, "-o", html])
    if r.returncode != 0:
        sys.exit("roam-trace report failed: " + r.stdout + r.stderr)
    # The check must catch a broken page: plant an error and expect it refused.
    planted = os.path.join(workdir, "planted.html")
    text = open(html).read().replace("document.body.dataset.ready = '1';", "undefinedFunction(); document.body.dataset.ready = '1';")
    open(planted, "w").write(text)
    if not problems_of(chromium, planted, workdir):
        sys.exit("the browser check did not notice a planted JavaScript error")
    problems = problems_of(chromium, html, workdir)
    if problems:
        sys.exit("report_in_browser: WRONG:\n  " + "\n  ".join(problems))
    print("report_in_browser: OK (no console errors, charts drawn)")


if __name__ == "__main__":
    main()
