"""Measures the frames of a hop in Chromium: on the first page's board of 11x11, 41x41 and
101x101, a new game, then seven clicks on a free cell beside the cat, each followed by the
intervals between the frames the browser paints for 300 ms (the hop takes 220). Prints, for each
size, the median interval, the median of each hop's longest, and how many hops missed a frame: a
frame missed on a 60 Hz screen shows as an interval of 33 ms.

Usage, from the repository, with the book built (`bash .ci/web`) and served:

    python3 -m http.server -d book/book 8765 &
    python3 src/book-browser/measure/hop_frames.py http://127.0.0.1:8765

Needs Playwright for Python (`pip install playwright`) and Chromium at /usr/bin/chromium.
"""

import json
import re
import statistics
import sys

from playwright.sync_api import sync_playwright

CLICK_AND_WATCH = """([x, y, bw]) => new Promise((done) => {
    const canvas = document.querySelector('canvas.chat-noir-live');
    const box = canvas.getBoundingClientRect();
    const scale = box.width / bw;
    const at = {bubbles: true, button: 0, pointerId: 1, isPrimary: true,
        clientX: box.left + (22 + 44 * x + (y % 2 ? 22 : 0)) * scale,
        clientY: box.top + (20 + 38.104 * y) * scale};
    const stamps = [];
    const start = performance.now();
    canvas.dispatchEvent(new PointerEvent('pointerdown', at));
    canvas.dispatchEvent(new PointerEvent('pointerup', at));
    const tick = (t) => {
        stamps.push(t);
        if (t - start < 300) requestAnimationFrame(tick); else done(stamps);
    };
    requestAnimationFrame(tick);
})"""


def world(page):
    """The board's cat and blocked cells, read from the world the canvas tells, and whether the
    game is still being played."""
    text = page.evaluate("document.querySelector('canvas.chat-noir-live').chatNoirWorld()")
    cat = tuple(map(int, re.search(r"cat: Posn \{ x: (\d+), y: (\d+) \}", text).groups()))
    cell = r"Cell \{ p: Posn \{ x: (\d+), y: (\d+) \}, blocked: true \}"
    blocked = {(int(x), int(y)) for x, y in re.findall(cell, text)}
    return cat, blocked, "state: Playing" in text


def beside(cat, blocked):
    """The first free cell beside the cat, in the game's order of neighbours, if any."""
    x, y = cat
    row = [(x, y - 1), (x + 1, y - 1)] if y % 2 else [(x - 1, y - 1), (x, y - 1)]
    below = [(x, y + 1), (x + 1, y + 1)] if y % 2 else [(x - 1, y + 1), (x, y + 1)]
    around = row + [(x - 1, y), (x + 1, y)] + below
    return next((p for p in around if p not in blocked), None)


def hops(page, size):
    """The frame intervals of up to seven hops on a new game of `size`."""
    page.select_option(".chat-noir-size", str(size))
    page.click(".chat-noir-new")
    page.wait_for_timeout(1500)
    intervals = []
    for _ in range(7):
        cat, blocked, playing = world(page)
        cell = beside(cat, blocked)
        if cell is None or not playing:
            break
        stamps = page.evaluate(CLICK_AND_WATCH, [cell[0], cell[1], 44 * size + 22])
        intervals.append([b - a for a, b in zip(stamps, stamps[1:])])
        page.wait_for_timeout(300)
    return intervals


def main(base):
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        page = browser.new_page(viewport={"width": 1280, "height": 1400})
        page.goto(f"{base}/index.html")
        page.wait_for_selector("canvas.chat-noir-live")
        results = {}
        for size in [11, 41, 101]:
            measured = hops(page, size)
            results[f"{size}x{size}"] = {
                "hops": len(measured),
                "median interval, ms": round(statistics.median(g for m in measured for g in m), 1),
                "median longest interval, ms": round(statistics.median(max(m) for m in measured), 1),
                "hops with a frame missed": sum(1 for m in measured if max(m) > 25),
            }
        browser.close()
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
