"""Times the coach's first answer in the book's first page: on the games of codes 11-1- to 11-7-
(the first deals of the usual board), from the key `c` to the status that no longer says the coach
is thinking (the worker started, the module instantiated in it, the position searched). Prints each
game's time and their median.

Usage, from the repository, with the book built (`bash .ci/web`) and served:

    python3 -m http.server -d book/book 8765 &
    python3 src/book-browser/measure/coach_answer.py http://127.0.0.1:8765

Needs Playwright for Python (`pip install playwright`) and Chromium at /usr/bin/chromium.
"""

import statistics
import sys

from playwright.sync_api import sync_playwright

CODES = [f"11-{seed}-" for seed in range(1, 8)]

ASK_AND_WAIT = """() => new Promise((done) => {
    const status = document.querySelector('.chat-noir-status');
    const start = performance.now();
    let thinking = false;
    const watch = new MutationObserver(() => {
        if (status.textContent.includes('thinking')) {
            thinking = true;
        } else if (thinking) {
            watch.disconnect();
            done([performance.now() - start, status.textContent]);
        }
    });
    watch.observe(status, {childList: true, characterData: true, subtree: true});
    const canvas = document.querySelector('canvas.chat-noir-live');
    canvas.dispatchEvent(new KeyboardEvent('keydown', {key: 'c', bubbles: true}));
})"""


def main(base):
    times = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        for code in CODES:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{base}/index.html#game={code}")
            page.wait_for_selector("canvas.chat-noir-live")
            page.wait_for_timeout(500)
            took, status = page.evaluate(ASK_AND_WAIT)
            times.append(took)
            print(f"{code}: {took:.0f} ms, {status}")
            page.close()
        browser.close()
    print(f"the coach's first answer: median {statistics.median(times):.0f} ms of {len(times)} games")


if __name__ == "__main__":
    main(sys.argv[1])
