"""Measures the book's first page against the Phaser "catch the cat" page, side by side in one run
of Chromium at 1280 px: how soon the first board is drawn, how many frames after a click's release
the click shows, and what is downloaded before the first board (requests, and bytes as gzip -9
would send them, the game's own files apart).

The same probe runs in both pages, before their scripts: it wraps requestAnimationFrame so that
after every callback of the page (and once a frame on its own) it copies the board's canvas, 2D or
WebGL, while its drawing is still there. The first board is the first copy in which a fifth of the
canvas differs from its corner; a click shows in the first frame whose copy changes anything in
the picture, counted from the first frame that begins after the mouse button's release (1 = the
next frame; the mouse is on the cell before the button goes down). Loads alternate between the
pages; each load clicks the first three free cells of the board's edge.

Usage, from the repository, with the book built (`bash .ci/web`) and both served:

    python3 -m http.server -d book/book 8765 &
    git -C PHASER_CLONE archive gh-pages | tar -x -C DIR   # its built site: three files
    python3 -m http.server -d DIR 8766 &
    python3 src/book-browser/measure/against_phaser.py http://127.0.0.1:8765 http://127.0.0.1:8766 7

Needs Playwright for Python (`pip install playwright`) and Chromium at /usr/bin/chromium.
"""

import gzip
import json
import statistics
import sys
import urllib.error
import urllib.parse
import urllib.request

from playwright.sync_api import sync_playwright

PROBE = """(() => {
    const frames = [];
    let copy = null, board = null, firstBoard = null, shown = null, released = null;
    const original = window.requestAnimationFrame.bind(window);
    const canvasOf = () => document.querySelector('canvas.chat-noir-live') || document.querySelector('canvas');
    function look(time) {
        const canvas = canvasOf();
        if (!canvas || canvas.width === 0) return;
        if (!copy || copy.width !== canvas.width || copy.height !== canvas.height) {
            copy = document.createElement('canvas');
            copy.width = canvas.width; copy.height = canvas.height;
        }
        const ctx = copy.getContext('2d', {willReadFrequently: true});
        ctx.clearRect(0, 0, copy.width, copy.height);
        ctx.drawImage(canvas, 0, 0);
        board = canvas;
        if (firstBoard === null) {
            const pixels = ctx.getImageData(0, 0, copy.width, copy.height).data;
            let differ = 0;
            for (let i = 0; i < pixels.length; i += 16) {
                if (Math.abs(pixels[i] - pixels[0]) + Math.abs(pixels[i + 1] - pixels[1])
                    + Math.abs(pixels[i + 2] - pixels[2]) > 30) differ++;
            }
            if (differ * 4 * 5 > pixels.length / 4) firstBoard = performance.now();
        }
        if (shown && shown.frame === null && released !== null) {
            if (time > released && !shown.frames.includes(time)) shown.frames.push(time);
            if (signature(ctx) !== shown.before) shown.frame = shown.frames.length;
        }
    }
    /** A hash of every pixel of the copy: any change to the picture changes it. */
    function signature(ctx) {
        const pixels = ctx.getImageData(0, 0, copy.width, copy.height).data;
        let hash = 0;
        for (let i = 0; i < pixels.length; i++) hash = (Math.imul(hash, 31) + pixels[i]) | 0;
        return hash;
    }
    window.requestAnimationFrame = (callback) => original((time) => { callback(time); look(time); });
    const loop = (time) => { look(time); original(loop); };
    original(loop);
    addEventListener('pointerup', (e) => { released = e.timeStamp; }, true);
    window.__probe = {
        firstBoard: () => firstBoard,
        box: () => { const r = board.getBoundingClientRect(); return [r.left, r.top, r.width, r.height, board.width, board.height]; },
        color: (x, y) => Array.from(copy.getContext('2d').getImageData(x, y, 1, 1).data.slice(0, 3)),
        watch: () => {
            released = null;
            shown = {before: signature(copy.getContext('2d')), frames: [], frame: null};
        },
        shown: () => shown && shown.frame,
    };
})();"""

EDGE = [(x, 0) for x in range(11)] + [(x, 10) for x in range(11)] + [(0, y) for y in range(1, 10)]


def cell_centre(page, kind, x, y):
    """A cell's centre in the canvas's own pixels, on an 11x11 board."""
    if kind == "phaser":
        return 80 + 40 * x + 20 * (y % 2), 79.5 + 34.7 * y
    left, top, width, height, cw, ch = page.evaluate("__probe.box()")
    scale = cw / (44 * 11 + 22)
    return (22 + 44 * x + (22 if y % 2 else 0)) * scale, (20 + 38.104 * y) * scale


def free(color):
    """Whether a cell's colour is a free cell's: light blue in both pages."""
    r, g, b = color
    return b > 200 and r < 200


def load(browser, kind, url):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.add_init_script(PROBE)
    page.goto(url)
    page.wait_for_function("__probe.firstBoard() !== null", timeout=20000)
    first = page.evaluate("__probe.firstBoard()")
    resources = page.evaluate("""(t) => [location.href].concat(performance.getEntriesByType('resource')
        .filter((e) => e.responseEnd <= t).map((e) => e.name))""", first)
    page.wait_for_timeout(1500)
    clicks = []
    for x, y in EDGE:
        cx, cy = cell_centre(page, kind, x, y)
        if not free(page.evaluate(f"__probe.color({int(cx)}, {int(cy)})")):
            continue
        left, top, width, height, cw, ch = page.evaluate("__probe.box()")
        page.mouse.move(left + cx * width / cw, top + cy * height / ch)
        page.wait_for_timeout(300)
        page.evaluate("__probe.watch()")
        page.mouse.down()
        page.mouse.up()
        page.wait_for_function("__probe.shown() !== null", timeout=5000)
        clicks.append(page.evaluate("__probe.shown()"))
        page.wait_for_timeout(700)
        if len(clicks) == 3:
            break
    page.close()
    return first, resources, clicks


def gzipped(url):
    """The size of what `url` answers, compressed as a server with gzip -9 would send it (a missing
    file's answer too: the request was made)."""
    try:
        with urllib.request.urlopen(url) as response:
            body = response.read()
    except urllib.error.HTTPError as missing:
        body = missing.read()
    return len(gzip.compress(body, 9))


def main():
    book, phaser, loads = sys.argv[1], sys.argv[2], int(sys.argv[3])
    pages = {"book": f"{book}/index.html", "phaser": f"{phaser}/index.html"}
    found = {kind: {"first board, ms": [], "frames to show a click": [], "resources": None}
             for kind in pages}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        for _ in range(loads):
            for kind, url in pages.items():
                first, resources, clicks = load(browser, kind, url)
                found[kind]["first board, ms"].append(first)
                found[kind]["frames to show a click"] += clicks
                found[kind]["resources"] = resources
        browser.close()
    report = {}
    for kind, seen in found.items():
        sizes = {url: gzipped(url) for url in seen["resources"]}
        game = {u: s for u, s in sizes.items()
                if urllib.parse.urlsplit(u).path.endswith(".wasm")
                or "chat-noir" in u or "phaser" in u or "catch-the-cat" in u}
        clicks = seen["frames to show a click"]
        report[kind] = {
            "first board, median ms": round(statistics.median(seen["first board, ms"]), 1),
            "first board, every load": [round(t) for t in seen["first board, ms"]],
            "clicks": len(clicks),
            "frames to show a click, median": statistics.median(clicks),
            "clicks shown in the first frame": sum(1 for c in clicks if c == 1),
            "requests before the first board": len(sizes),
            "KB (gzip -9) before the first board": round(sum(sizes.values()) / 1000, 1),
            "of which the game's files, KB": round(sum(game.values()) / 1000, 1),
            "the game's files": sorted(urllib.parse.urlsplit(u).path.rsplit("/", 1)[-1] for u in game),
        }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
