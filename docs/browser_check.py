"""Open the built site in headless Chromium and check every page as a reader would see it.

``python docs/browser_check.py [build/docs/html] [--chromium PATH] [--pages lessons/01_geometry.html ...]``

The built site is served from a local port (``127.0.0.1``, a thread of this process); Debian's
``chromium`` is driven over the Chrome DevTools protocol (``websocket-client``), with a fresh
profile and no network features. For each page it waits for the load event, for MathJax to
finish and for every image to decode, then records:

* ``images``: every ``<img>`` has ``naturalWidth > 0`` (figures and logos loaded);
* ``math``: no MathJax error node (``mjx-merror``), and every math block was typeset;
* ``console``: console errors, uncaught exceptions, failed loads (404...), and any request to
  a host other than the local server (the site must be self-contained: MathJax is local);
* ``outputs``: no output block of a notebook cell, and no code cell, is wider than its box
  (``scrollWidth`` against ``clientWidth``): what does not fit is cut at the page edge or hidden
  behind a scroll bar;
* a full-page screenshot, ``OUT/screenshots/<page>.png``.

Exit status 0 when every page passes. Needs ``pip install -e '.[docs]'`` and ``apt-get install chromium``.
"""

from __future__ import annotations

import argparse
import base64
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars", "--window-size=1280,900", "--remote-debugging-port=0")
MAX_SCREENSHOT_HEIGHT = 16000  # px: long pages are cut there (the file stays a few MB)

# Evaluated in the page once it has loaded: wait for MathJax and the images, then report.
_PAGE_PROBE = """
(async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) { await MathJax.startup.promise; }
  await Promise.all(Array.from(document.images).map(
      img => img.complete ? null : new Promise(done => { img.onload = img.onerror = done; })));
  const images = Array.from(document.images).map(
      img => ({src: img.getAttribute('src'), width: img.naturalWidth, height: img.naturalHeight}));
  const blocks = Array.from(document.querySelectorAll('.math'));
  return {
    images: images,
    math_blocks: blocks.length,
    math_typeset: blocks.filter(b => b.querySelector('mjx-container')).length,
    math_containers: document.querySelectorAll('mjx-container').length,
    math_errors: Array.from(document.querySelectorAll('mjx-merror')).map(e => e.textContent.slice(0, 120)),
    mathjax_loaded: !!(window.MathJax && MathJax.version),
    overflowing_outputs: Array.from(document.querySelectorAll('.cell_output pre, .cell_output .output'))
        .filter(e => e.scrollWidth > e.clientWidth + 1)
        .map(e => `${e.scrollWidth} px in ${e.clientWidth} px: ${e.textContent.trim().slice(0, 60)}`),
    overflowing_inputs: Array.from(document.querySelectorAll('.cell_input pre'))
        .filter(e => e.scrollWidth > e.clientWidth + 1)
        .map(e => `${e.scrollWidth} px in ${e.clientWidth} px: ${e.textContent.trim().slice(0, 60)}`),
    title: document.title,
  };
})()
"""


@dataclass
class PageCheck:
    """What the browser saw on one page."""

    page: str  # path relative to the site root
    ok: bool = False  # every check passed
    images: int = 0  # <img> elements
    broken_images: list[str] = field(default_factory=list)  # src of images with naturalWidth 0
    math_blocks: int = 0  # elements of class "math" (inline and display)
    math_typeset: int = 0  # of those, typeset by MathJax
    math_errors: list[str] = field(default_factory=list)  # text of MathJax error nodes
    console_errors: list[str] = field(default_factory=list)  # console errors, exceptions, failed loads
    external_requests: list[str] = field(default_factory=list)  # URLs outside the local server
    overflowing_outputs: list[str] = field(default_factory=list)  # cell outputs wider than their box
    overflowing_inputs: list[str] = field(default_factory=list)  # code cells wider than their box
    screenshot: str = ""  # the PNG written
    seconds: float = 0.0  # load + checks + screenshot

    def problems(self) -> list[str]:
        out = [f"image not loaded: {src}" for src in self.broken_images]
        out += [f"MathJax error: {text}" for text in self.math_errors]
        if self.math_typeset < self.math_blocks:
            out.append(f"math typeset in {self.math_typeset} of {self.math_blocks} blocks")
        out += [f"console: {line}" for line in self.console_errors]
        out += [f"request to another host: {url}" for url in self.external_requests]
        out += [f"output wider than the page: {text}" for text in self.overflowing_outputs]
        out += [f"code wider than the page: {text}" for text in self.overflowing_inputs]
        return out


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass


def serve(root: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve ``root`` on ``127.0.0.1`` (a free port) from a daemon thread; returns (server, base URL)."""
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


class Browser:
    """One headless Chromium with a fresh profile, driven over one page's DevTools websocket."""

    def __init__(self, executable: str, *, timeout: float = 60.0) -> None:
        import websocket  # websocket-client, from the docs extra

        self.profile = tempfile.mkdtemp(prefix="geosched-chromium-")
        self.process = subprocess.Popen([executable, *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while not (port_file.is_file() and port_file.read_text().strip()):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError(f"{executable} did not start (exit {self.process.returncode})")
            time.sleep(0.1)
        port = port_file.read_text().split()[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as response:
            pages = [t for t in json.load(response) if t.get("type") == "page"]
        self.ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=timeout,
                                              suppress_origin=True)
        self.timeout = timeout
        self._next_id = 0
        self.events: list[dict] = []
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")

    def call(self, method: str, params: dict | None = None) -> dict:
        """Send one command and return its result; events that arrive meanwhile are kept."""
        self._next_id += 1
        self.ws.send(json.dumps({"id": self._next_id, "method": method, "params": params or {}}))
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            message = json.loads(self.ws.recv())
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)
        raise TimeoutError(method)

    def wait_for(self, event: str) -> None:
        """Read events until ``event`` arrives."""
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if any(e["method"] == event for e in self.events):
                return
            message = json.loads(self.ws.recv())
            if "method" in message:
                self.events.append(message)
        raise TimeoutError(event)

    def close(self) -> None:
        if getattr(self, "ws", None) is not None:
            self.ws.close()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def _console_errors(events: list[dict], base: str) -> tuple[list[str], list[str]]:
    errors, external = [], []
    for event in events:
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            errors.append(details.get("exception", {}).get("description") or details.get("text", "exception"))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            errors.append(f"{entry.get('text', '')} {entry.get('url', '')}".strip())
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            errors.append(f"load failed: {params.get('errorText')}")
        elif method == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            if not url.startswith((base, "data:", "blob:", "about:")):
                external.append(url)
    return errors, external


def check_page(browser: Browser, base: str, page: str, screenshots: Path) -> PageCheck:
    """Load ``page`` and run every check; the screenshot goes to ``screenshots/<page>.png``."""
    began = time.perf_counter()
    result = PageCheck(page)
    browser.events.clear()
    browser.call("Page.navigate", {"url": base + page})
    browser.wait_for("Page.loadEventFired")
    probe = browser.call("Runtime.evaluate", {"expression": _PAGE_PROBE, "awaitPromise": True,
                                              "returnByValue": True})
    if "exceptionDetails" in probe:
        result.console_errors.append(f"page probe failed: {probe['exceptionDetails'].get('text')}")
        data = {}
    else:
        data = probe["result"]["value"]
    images = data.get("images", [])
    result.images = len(images)
    result.broken_images = [img["src"] for img in images if not img["width"]]
    result.math_blocks = data.get("math_blocks", 0)
    result.math_typeset = data.get("math_typeset", 0)
    result.math_errors = data.get("math_errors", [])
    result.overflowing_outputs = data.get("overflowing_outputs", [])
    result.overflowing_inputs = data.get("overflowing_inputs", [])
    time.sleep(0.2)  # late console messages (a script failing after load)
    browser.call("Runtime.evaluate", {"expression": "1"})
    result.console_errors += _console_errors(browser.events, base)[0]
    result.external_requests = _console_errors(browser.events, base)[1]
    size = browser.call("Page.getLayoutMetrics")["cssContentSize"]
    height = min(int(size["height"]), MAX_SCREENSHOT_HEIGHT)
    shot = browser.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                   "clip": {"x": 0, "y": 0, "width": int(size["width"]),
                                                            "height": height, "scale": 1}})
    target = screenshots / (page.replace("/", "__").removesuffix(".html") + ".png")
    target.write_bytes(base64.b64decode(shot["data"]))
    result.screenshot = str(target)
    result.ok = not result.problems()
    result.seconds = round(time.perf_counter() - began, 2)
    return result


def find_chromium(explicit: str | None = None) -> str | None:
    """``explicit``, else ``$GEOSCHED_CHROMIUM``, else ``chromium`` or ``chromium-browser`` on PATH."""
    for candidate in (explicit, os.environ.get("GEOSCHED_CHROMIUM"), "chromium", "chromium-browser"):
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    return None


def check_site(html: Path, pages: list[str], *, chromium: str, out: Path) -> list[PageCheck]:
    """Serve ``html``, open each page in one Chromium, write ``out/browser_check.json``."""
    screenshots = out / "screenshots"
    screenshots.mkdir(parents=True, exist_ok=True)
    server, base = serve(html)
    browser = Browser(chromium)
    try:
        results = [check_page(browser, base, page, screenshots) for page in pages]
    finally:
        browser.close()
        server.shutdown()
        server.server_close()
    (out / "browser_check.json").write_text(json.dumps([asdict(r) for r in results], indent=1) + "\n")
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = Path(__file__).resolve().parent.parent
    parser.add_argument("html", nargs="?", default=str(root / "build" / "docs" / "html"), help="the built site")
    parser.add_argument("--chromium", default=None, help="browser executable (default: chromium on PATH)")
    parser.add_argument("--pages", nargs="*", default=None, help="pages to open (default: every lesson and index)")
    args = parser.parse_args(argv)
    html = Path(args.html)
    chromium = find_chromium(args.chromium)
    if chromium is None:
        print("browser_check: chromium not found (apt-get install chromium)", file=sys.stderr)
        return 2
    pages = args.pages or ["index.html", *sorted(str(p.relative_to(html)) for p in (html / "lessons").glob("*.html"))]
    results = check_site(html, pages, chromium=chromium, out=html.parent)
    for r in results:
        verdict = "ok" if r.ok else "FAIL: " + "; ".join(r.problems())
        print(f"{r.page:40} images {r.images - len(r.broken_images)}/{r.images}  math {r.math_typeset}/"
              f"{r.math_blocks} typeset, {len(r.math_errors)} errors  console errors {len(r.console_errors)}  "
              f"{r.seconds:5.1f}s  {verdict}")
    print(f"pages checked: {sum(r.ok for r in results)} ok, {sum(not r.ok for r in results)} with problems")
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
