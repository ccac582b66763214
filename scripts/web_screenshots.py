"""The screenshots of the browser board in the docs, taken from today's page.

Starts ``boardlab serve`` on a free local port, drives Debian's ``chromium`` with Playwright
(as ``tests/test_web_browser.py`` does) and writes:

- ``web-connect4.png``: a Connect Four position with hints on (the solver's value of each column);
- ``web-review.png``: a finished Tic-Tac-Toe game reviewed (each move's verdict, the best moves
  for the two mistakes, each side's summary).

    .venv/bin/python scripts/web_screenshots.py            # into docs/img
    .venv/bin/python scripts/web_screenshots.py --out /tmp/shots
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
VIEWPORT = {"width": 1400, "height": 900}
WAIT_MS = 60_000


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serving() -> Iterator[str]:
    """``boardlab serve`` in its own process, as its base URL once it answers."""
    port = free_port()
    command = [sys.executable, "-c", "from boardlab.ui.cli import main; main()", "serve", "--port", str(port)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(base + "/api/meta", timeout=5) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server did not start (exit status {server.poll()})")
            time.sleep(0.2)
        yield base
    finally:
        server.terminate()
        server.wait(30)


def open_page(page: Page, base: str, query: str) -> None:
    page.goto(base + "/" + query)
    page.wait_for_selector("body[data-ready='1']")


def connect_four(page: Page, base: str, out: Path) -> None:
    # O to move after 13 moves: the solver answers at once, a win in one column only
    open_page(page, base, "?game=connect4&x=person&o=person&moves=4444445555531&hints=1")
    page.wait_for_selector("#analysis-table")
    page.wait_for_function("() => document.querySelectorAll('.c4 .score.val-win').length > 0")
    page.screenshot(path=str(out / "web-connect4.png"))


def review(page: Page, base: str, out: Path) -> None:
    # X throws its win at move 5, O its draw at move 2 and wins at move 6
    open_page(page, base, "?game=tictactoe&x=person&o=person&moves=a1,c3,c1,b3,a2,a3")
    page.click("#review")
    done = "() => document.getElementById('review-status').textContent === '6 moves reviewed'"
    page.wait_for_function(done)
    page.screenshot(path=str(out / "web-review.png"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img", help="where the screenshots go")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with serving() as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"], headless=True
        )
        page = browser.new_page(viewport=VIEWPORT)
        page.set_default_timeout(WAIT_MS)
        for shoot in (connect_four, review):
            shoot(page, base, args.out)
        browser.close()
    print(f"wrote web-connect4.png and web-review.png in {args.out}")


if __name__ == "__main__":
    main()
