#!/usr/bin/env python3
"""The replay page in a real browser (headless Chromium, software WebGL).

    test_viewer_browser.py LUCID_BINARY SOURCE_DIR [KEEP_DIR]

1. build/lucid tests/viewer/scene.lua writes the page of a recorded scene (a red box sliding on
   a ground plane, a blue sphere falling) and prints the camera and the bodies' world positions.
2. Chromium loads page.html#frame=N&size=WxH&probe=1 (--dump-dom and --screenshot in one run):
   the page must report no JavaScript error, be "ready", show frame N, and its projection of
   the bodies must agree with the one computed here from the camera alone (pinhole, 40 deg).
3. Pixel checks on the screenshot, at the positions projected here: at the last frame the box
   is red and the sphere blue there; at frame 1 the same pixels are neither (the bodies were
   elsewhere: ground or background); with the force arrows on, the pixels at the middle of the
   arrows the page reports are arrow green.
4. The floor is visible: at frame 1, two neighbouring floor tiles (the tile size the page
   reports) differ in brightness, and the ball's shadow straight below it is darker than the
   floor around it.
5. The page with the default camera, opened at #frame=1000 (beyond the 101 frames): no error,
   the last frame shown with a note saying so, and the scene's bounds projected through the
   camera the page reports lie inside the view and fill at least half its width or height.
6. tests/viewer/terrain.lua (a box and a ball dropped on a height field): the page draws the
   field with 6 ((R-1)(C-1) + 2(R-1) + 2(C-1) + 1) vertices (two triangles per cell, the rim's
   walls, the bottom), its first cell's triangles split along the diagonal lucid collides
   ((r + 1, c) to (r, c + 1)) at the recorded heights; in the screenshot the surface at grid
   samples is neither background nor a body, the front wall is dark, the bodies show their hues.
Exit 77 (skipped) when Chromium is not installed. KEEP_DIR keeps the pages and screenshots.
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zlib

W, H = 800, 560
TIMEOUT = 180  # seconds per browser run: generous, the machine may be loaded


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def decode_png(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB/RGBA non-interlaced PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path + " is not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length = int.from_bytes(data[pos:pos + 4], "big")
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height = int.from_bytes(header[0:4], "big"), int.from_bytes(header[4:8], "big")
    depth, color, interlace = header[8], header[9], header[12]
    if depth != 8 or color not in (2, 6) or interlace != 0:
        fail("unsupported PNG (depth %d, colour type %d, interlace %d)" % (depth, color, interlace))
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        filt = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if filt == 1:
                line[x] = (line[x] + a) & 255
            elif filt == 2:
                line[x] = (line[x] + b) & 255
            elif filt == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif filt == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 255
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, bpp)])
        prev = line
    return width, height, rows


def project(camera, point, fov=40.0):
    """Pixel (x, y) of a world point for a camera at eye looking at target, z up."""
    eye, target = camera["eye"], camera["target"]
    sub = lambda u, v: [u[k] - v[k] for k in range(3)]
    dot = lambda u, v: sum(u[k] * v[k] for k in range(3))
    cross = lambda u, v: [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                          u[0] * v[1] - u[1] * v[0]]
    unit = lambda u: [c / math.sqrt(dot(u, u)) for c in u]
    f = unit(sub(target, eye))
    r = unit(cross(f, [0, 0, 1]))
    u = cross(r, f)
    d = sub(point, eye)
    t = math.tan(math.radians(fov) / 2)
    ndc_x = dot(d, r) / (dot(d, f) * t * W / H)
    ndc_y = dot(d, u) / (dot(d, f) * t)
    return (ndc_x + 1) / 2 * W, (1 - ndc_y) / 2 * H


def browse(chromium, page, fragment, png, profile):
    """Loads page#fragment; returns the DOM after the page settled, writes the screenshot."""
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--enable-unsafe-swiftshader",
           "--hide-scrollbars", "--no-first-run", "--user-data-dir=" + profile,
           "--window-size=%d,%d" % (W, H), "--virtual-time-budget=15000",
           "--screenshot=" + png, "--dump-dom", "file://" + page + "#" + fragment]
    # a browser that does not answer in time or exits without a page (a loaded machine) is
    # retried; a page that answers is judged at once
    for attempt in range(3):
        if os.path.exists(png):
            os.remove(png)
        try:
            run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            print("chromium did not finish in %d s (attempt %d)" % (TIMEOUT, attempt + 1))
            continue
        dom = run.stdout.decode("utf-8", "replace")
        if run.returncode == 0 and os.path.exists(png) and "<body" in dom:
            break
        print("chromium exited %d without a page (attempt %d): %s" %
              (run.returncode, attempt + 1, run.stderr.decode()[-500:]))
    else:
        fail("chromium gave no page in 3 attempts")
    title = re.search(r"<title>([^<]*)</title>", dom)
    if not title or title.group(1).startswith("lucid-viewer-error"):
        fail("the page reported a JavaScript error: " + (title.group(1) if title else "no title"))
    if not re.search(r'<body[^>]*data-status="ready"', dom):
        fail("the page never drew a frame (data-status is not 'ready')")
    m = re.search(r'<pre id="lucid-probe"[^>]*>([^<]*)</pre>', dom)
    if not m or not m.group(1):
        fail("the page wrote no probe")
    return json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))


def hex_rgb(color):
    return tuple(int(color[k:k + 2], 16) for k in (1, 3, 5))


def window(rows, x, y, half=2):
    return [rows[j][i] for j in range(int(y) - half, int(y) + half + 1)
            for i in range(int(x) - half, int(x) + half + 1)]


def dominant(pixel, channel):
    """The pixel is clearly of the given channel's hue (0 red, 1 green, 2 blue)."""
    others = [pixel[k] for k in range(3) if k != channel]
    return pixel[channel] >= 60 and pixel[channel] - max(others) >= 40


def neutral(pixel):
    return max(pixel) - min(pixel) <= 30


def luminance(pixels):
    """The mean brightness (0..255) of a list of pixels."""
    return sum(0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2] for p in pixels) / len(pixels)


def mostly(pixels, test):
    return sum(1 for p in pixels if test(p)) >= 0.7 * len(pixels)


def terrain_checks(lucid, source, work, chromium, checks):
    """The height field scene (6. above): the drawn grid against the scene's heights."""
    page = os.path.join(work, "terrain.html")
    run = subprocess.run([lucid, os.path.join(source, "tests/viewer/terrain.lua"), page],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT,
                         cwd=source)
    if run.returncode != 0:
        fail("terrain.lua failed: " + run.stderr.decode())
    sc = json.loads(run.stdout.decode())
    png = os.path.join(work, "terrain.png")
    frag = "frame=%d&size=%dx%d&probe=1&forces=0" % (sc["frames"], W, H)
    probe = browse(chromium, page, frag, png, os.path.join(work, "profile_terrain"))
    rows_, cols, s, o = sc["rows"], sc["columns"], sc["size"], sc["origin"]
    if len(probe.get("terrain", [])) != 1 or probe["terrain"][0]["object"] != 0:
        fail("the page reports height fields %s, expected one (object 0)" % probe.get("terrain"))
    drawn = probe["terrain"][0]
    expect = 6 * ((rows_ - 1) * (cols - 1) + 2 * (rows_ - 1) + 2 * (cols - 1) + 1)
    if drawn["vertices"] != expect:
        fail("the height field is drawn with %d vertices, expected %d" % (drawn["vertices"], expect))

    def sample(r, c, origin=(0, 0, 0)):  # grid sample (r, c): rows along y, columns along x
        return [origin[0] - s[0] + 2 * s[0] * c / (cols - 1),
                origin[1] - s[1] + 2 * s[1] * r / (rows_ - 1), origin[2] + sc["heights"][r * cols + c]]
    cell = sum((sample(*v) for v in [(0, 0), (0, 1), (1, 0), (1, 0), (0, 1), (1, 1)]), [])
    gap = max(abs(a - b) for a, b in zip(drawn["first_cell"], cell))
    if gap > 1e-6:
        fail("the first cell is drawn as %s, expected %s (gap %.2g)" % (drawn["first_cell"], cell, gap))
    checks.append("terrain: %d x %d samples drawn with %d vertices; first cell's triangles within %.1g"
                  % (rows_, cols, expect, gap))
    width, height, rows = decode_png(png)
    cam = sc["camera"]
    background = luminance([hex_rgb(probe["background"])])
    for r, c in [(0, 6), (1, 10), (3, 3), (6, 9)]:
        x, y = project(cam, sample(r, c, o))
        pixels = window(rows, x, y)
        if not mostly(pixels, neutral) or luminance(pixels) > background - 15:
            fail("terrain: sample (%d, %d) at (%.0f, %.0f) is not drawn: %s" % (r, c, x, y, pixels[:5]))
    for dx in (-0.4, 0, 0.4):  # the front wall, half-way down to the base
        x, y = project(cam, [o[0] + dx, o[1] - s[1], o[2] - 0.5 * s[3]])
        if luminance(window(rows, x, y)) > background - 80:
            fail("terrain: no front wall at (%.0f, %.0f): %s" % (x, y, rows[int(y)][int(x)]))
    for body, channel in (("box", 0), ("ball", 2)):
        x, y = project(cam, sc[body])
        if not mostly(window(rows, x, y), lambda p: dominant(p, channel)):
            fail("terrain: the %s is not drawn at (%.0f, %.0f)" % (body, x, y))
    checks.append("terrain: surface, front wall and both bodies drawn where the camera puts them")


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    lucid, source = sys.argv[1], sys.argv[2]
    keep = sys.argv[3] if len(sys.argv) > 3 else None
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("chromium is not installed (Debian package chromium): skipped")
        sys.exit(77)
    work = tempfile.mkdtemp(prefix="lucid_viewer_")
    try:
        page = os.path.join(work, "scene.html")
        run = subprocess.run([lucid, os.path.join(source, "tests/viewer/scene.lua"), page,
                              os.path.join(work, "scene_default_camera.html")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT,
                             cwd=source)
        if run.returncode != 0:
            fail("scene.lua failed: " + run.stderr.decode())
        scene = json.loads(run.stdout.decode())
        page2 = os.path.join(work, "scene_default_camera.html")
        html = open(page, encoding="utf-8").read()
        if re.search(r"<(script|link|img)[^>]+(src|href)=", html):
            fail("the page loads an external resource")
        last = scene["frames"]
        pos_last, pos_first = scene["positions"][str(last)], scene["positions"]["1"]
        cam = scene["camera"]
        checks = []

        def shot(frame, forces, name, url=page, shown=None):
            png = os.path.join(work, name)
            frag = "frame=%d&size=%dx%d&probe=1&forces=%d" % (frame, W, H, forces)
            probe = browse(chromium, url, frag, png, os.path.join(work, "profile_" + name))
            shown = shown or frame
            if probe["frame"] != shown or probe["width"] != W or probe["height"] != H:
                fail("the page shows frame %s at %sx%s, expected frame %d at %dx%d" %
                     (probe["frame"], probe["width"], probe["height"], shown, W, H))
            width, height, rows = decode_png(png)
            if (width, height) != (W, H):
                fail("screenshot is %dx%d, expected %dx%d" % (width, height, W, H))
            return probe, rows

        # the last frame, no arrows: each body shows its colour where it projects
        probe, rows = shot(last, 0, "last.png")
        names = {"box": "body 2", "ball": "body 3"}
        channel = {"box": 0, "ball": 2}
        for body in ("box", "ball"):
            x, y = project(cam, pos_last[body])
            shown = [o for o in probe["objects"] if o["name"] == names[body]][0]
            if math.hypot(shown["screen"][0] - x, shown["screen"][1] - y) > 1.5:
                fail("the page projects the %s at %s, the camera puts it at (%.1f, %.1f)" %
                     (body, shown["screen"][:2], x, y))
            if not (20 < x < W - 20 and 20 < y < H - 60):
                fail("the %s projects outside the checked area: (%.1f, %.1f)" % (body, x, y))
            pixels = window(rows, x, y)
            if not mostly(pixels, lambda p: dominant(p, channel[body])):
                fail("frame %d: the %s (%s) is not drawn at (%.0f, %.0f): %s" %
                     (last, body, scene["colors"][body], x, y, pixels[:5]))
            checks.append("frame %d: %s drawn at (%.0f, %.0f), centre pixel %s" %
                          (last, body, x, y, rows[int(y)][int(x)]))
        # frame 1: the same pixels hold no body (the box had not slid there, the ball was high)
        probe1, rows1 = shot(1, 0, "first.png")
        for body in ("box", "ball"):
            x, y = project(cam, pos_last[body])
            pixels = window(rows1, x, y)
            if not mostly(pixels, neutral):
                fail("frame 1: (%.0f, %.0f), where the %s ends, is not background/ground: %s" %
                     (x, y, body, pixels[:5]))
            x1, y1 = project(cam, pos_first[body])
            if not mostly(window(rows1, x1, y1), lambda p: dominant(p, channel[body])):
                fail("frame 1: the %s is not drawn at its start (%.0f, %.0f)" % (body, x1, y1))
            checks.append("frame 1: background at (%.0f, %.0f) %s; %s at its start (%.0f, %.0f)" %
                          (x, y, rows1[int(y)][int(x)], body, x1, y1))
        # the floor: neighbouring tiles differ in brightness (in front of the bodies, at y ~ -0.2)
        s = probe1.get("tile")
        if not s or s <= 0:
            fail("the page reports no floor tiles: %s" % s)
        i, j = math.floor(0.1 / s), math.floor(-0.2 / s)
        tiles = [window(rows1, *project(cam, [(i + di + 0.5) * s, (j + 0.5) * s, 0])) for di in (0, 1)]
        contrast = abs(luminance(tiles[0]) - luminance(tiles[1]))
        if contrast < 25:
            fail("frame 1: neighbouring floor tiles differ by %.0f in brightness (< 25): %s %s" %
                 (contrast, tiles[0][12], tiles[1][12]))
        checks.append("frame 1: neighbouring floor tiles (%g m) differ by %.0f in brightness" %
                      (s, contrast))
        # the ball's shadow (the sun shines straight down) is darker than the floor around it,
        # sampled behind it on a circle of twice the ball's radius
        ball = pos_first["ball"]
        shadow = luminance(window(rows1, *project(cam, [ball[0], ball[1], 0])))
        ring = [luminance(window(rows1, *project(cam, [ball[0] + 0.14 * math.cos(a),
                                                     ball[1] + 0.14 * math.sin(a), 0]), 1))
                for a in [k * math.pi / 8 for k in range(9)]]
        if shadow > min(ring) - 20:
            fail("frame 1: no shadow under the ball: %.0f there, %.0f..%.0f around" %
                 (shadow, min(ring), max(ring)))
        checks.append("frame 1: the ball's shadow %.0f, the floor around %.0f..%.0f" %
                      (shadow, min(ring), max(ring)))
        # arrows on: the contact forces are drawn (green) at the positions the page reports
        probe, rows2 = shot(last, 1, "forces.png")
        if pos_last["contacts"] < 1 or len(probe["arrows"]) < 1:
            fail("no force arrows at the last frame (%d contacts, %d arrows)" %
                 (pos_last["contacts"], len(probe["arrows"])))
        green = 0
        for a in probe["arrows"]:
            x, y = a["screen_mid"][:2]
            if 0 <= x < W and 0 <= y < H and any(dominant(p, 1) for p in window(rows2, x, y, 1)):
                green += 1
        if green < len(probe["arrows"]):
            fail("only %d of %d force arrows are drawn where the page puts them" %
                 (green, len(probe["arrows"])))
        checks.append("frame %d: %d force arrows drawn" % (last, green))
        # the default camera, at a frame beyond the last: the last frame, said so, framed
        probe3, _ = shot(1000, 0, "default_camera.png", page2, last)
        if "#frame=1000 is not in 1..%d: frame %d shown" % (last, last) not in probe3["note"]:
            fail("#frame=1000 shows the last frame without saying so: %s" % probe3["note"])
        view = {"eye": probe3["camera"]["eye"], "target": probe3["camera"]["target"]}
        lo, hi = scene["bounds"]
        corners = [project(view, [(hi if c & 1 else lo)[0], (hi if c & 2 else lo)[1],
                                  (hi if c & 4 else lo)[2]]) for c in range(8)]
        xs, ys = [c[0] for c in corners], [c[1] for c in corners]
        if min(xs) < 0 or max(xs) > W or min(ys) < 0 or max(ys) > H:
            fail("the default camera cuts the scene: its bounds span x %.0f..%.0f, y %.0f..%.0f" %
                 (min(xs), max(xs), min(ys), max(ys)))
        if max(xs) - min(xs) < W / 2 and max(ys) - min(ys) < H / 2:
            fail("the default camera shows the scene small: x %.0f..%.0f, y %.0f..%.0f" %
                 (min(xs), max(xs), min(ys), max(ys)))
        checks.append("#frame=1000: frame %d shown (%s); default camera frames the scene in "
                      "x %.0f..%.0f, y %.0f..%.0f" % (last, probe3["note"].split(" \u00b7 ")[-1],
                                                       min(xs), max(xs), min(ys), max(ys)))
        terrain_checks(lucid, source, work, chromium, checks)
        for c in checks:
            print("ok  " + c)
        if keep:
            os.makedirs(keep, exist_ok=True)
            for name in ("scene.html", "last.png", "first.png", "forces.png", "default_camera.png",
                         "terrain.html", "terrain.png"):
                shutil.copy(os.path.join(work, name), os.path.join(keep, name))
        print("viewer browser test passed")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
