"""Open a report page in headless Chromium and say what a reader would get.

Used by the browser test (reports/tests/test_browser.py) and by
scripts/record/docs_figures.py for the page screenshots in docs/img. It serves the
report folder over HTTP on 127.0.0.1 (a free port, this process only, every
request and its status recorded), starts Chromium with the DevTools
protocol on a pipe (--remote-debugging-pipe: JSON messages ended by NUL on
file descriptors 3 and 4, so no WebSocket client is needed), loads the page,
and collects console messages, exceptions, failed or >= 400 responses, the
state of every <img>, every link, the page text and a screenshot.
"""

from __future__ import annotations

import base64
import select
import functools
import http.server
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    log: list

    def log_message(self, *args):  # no chatter on stderr
        pass

    def log_request(self, code="-", size="-"):
        self.log.append((self.path, int(code) if str(code).isdigit() else code))


class ReportServer:
    """http.server on 127.0.0.1, a free port, serving `root` from a thread."""

    def __init__(self, root: Path):
        self.requests: list[tuple[str, int]] = []
        handler = type("Handler", (_QuietHandler,), {"log": self.requests})
        self.httpd = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(handler, directory=str(root)))
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


class BrowserError(Exception):
    pass


@dataclass
class PageCheck:
    """What the browser saw on one page."""

    url: str
    console: list[str] = field(default_factory=list)   # errors and warnings
    failed: list[str] = field(default_factory=list)    # failed loads, HTTP >= 400
    images: list[dict] = field(default_factory=list)   # {src, ok, width, height}
    links: list[str] = field(default_factory=list)
    text: str = ""        # what is shown (innerText)
    dom_text: str = ""    # every text of the DOM, collapsed tables included
    screenshot: bytes = b""


class Chromium:
    """One headless Chromium driven over the DevTools pipe."""

    def __init__(self, binary: str | None = None, width: int = 1280, height: int = 1600,
                 timeout: float = 30.0):
        self.binary = binary or find_browser()
        if not self.binary:
            raise BrowserError("no Chromium on PATH (scripts/setup_browser.sh installs it)")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="cubench-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire_fds():  # Chromium reads commands on fd 3 and answers on fd 4
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        args = [self.binary, "--headless", "--remote-debugging-pipe", "--no-sandbox",
                "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--no-default-browser-check", "--hide-scrollbars", "--mute-audio",
                "--disable-extensions", "--disable-background-networking",
                f"--user-data-dir={self.profile}", f"--window-size={width},{height}",
                "about:blank"]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     pass_fds=(3, 4), preexec_fn=wire_fds)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        self.width, self.height = width, height

    # --- the protocol ---------------------------------------------------------

    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise BrowserError("Chromium did not answer in time")
            ready, _, _ = select.select([self._from_child], [], [], 0.2)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise BrowserError(f"Chromium closed the pipe (exit {self.proc.poll()})")
                self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(raw)

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str, session: str, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method and event.get("sessionId") == session:
                    return self.events.pop(i)
            self.events.append(self._read_message(deadline))

    def pump(self, seconds: float) -> None:
        """Take in events for a while (late console messages, image loads)."""
        deadline = time.monotonic() + seconds
        try:
            while True:
                self.events.append(self._read_message(deadline))
        except BrowserError:
            pass

    # --- a page ---------------------------------------------------------------

    def check(self, url: str, full_page: bool = False) -> PageCheck:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", session=session)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": self.width, "height": self.height, "deviceScaleFactor": 1,
                   "mobile": False}, session=session)
        self.events = [e for e in self.events if e.get("sessionId") != session]
        self.send("Page.navigate", {"url": url}, session=session)
        self.wait_for("Page.loadEventFired", session, self.timeout)
        self.pump(0.5)
        page = PageCheck(url=url)
        for event in [e for e in self.events if e.get("sessionId") == session]:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error",
                                                                              "warning", "assert"):
                page.console.append(" ".join(str(a.get("value", a.get("description", "")))
                                             for a in params.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                page.console.append(params["exceptionDetails"].get("text", "exception"))
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                entry = params["entry"]
                page.console.append(f"{entry['text']} {entry.get('url', '')}".strip())
            elif method == "Network.responseReceived" and params["response"]["status"] >= 400:
                page.failed.append(f"{params['response']['status']} {params['response']['url']}")
            elif method == "Network.loadingFailed" and not params.get("canceled"):
                page.failed.append(f"{params.get('errorText')} (request {params['requestId']})")
        probe = ("JSON.stringify({images: Array.from(document.images).map(i => ({src: "
                 "i.currentSrc || i.src, ok: i.complete && i.naturalWidth > 0, width: "
                 "i.naturalWidth, height: i.naturalHeight})), links: Array.from("
                 "document.querySelectorAll('a[href]')).map(a => a.href), text: "
                 "document.body ? document.body.innerText : '', dom: "
                 "document.body ? document.body.textContent : ''})")
        result = self.send("Runtime.evaluate", {"expression": probe, "returnByValue": True},
                           session=session)["result"]["value"]
        found = json.loads(result)
        page.images, page.links = found["images"], found["links"]
        page.text, page.dom_text = found["text"], found["dom"]
        shot = self.send("Page.captureScreenshot",
                         {"format": "png", "captureBeyondViewport": full_page},
                         session=session)
        page.screenshot = base64.b64decode(shot["data"])
        self.send("Target.closeTarget", {"targetId": target})
        self.events = [e for e in self.events if e.get("sessionId") != session]
        return page

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except BrowserError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
