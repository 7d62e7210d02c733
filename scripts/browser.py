"""A built site served as its host serves it, and a headless Chromium to visit it: the
browser checks of `scripts/validate` (`check-search.py`, `check-time.py`) share this.

The server sends each path the Content-Security-Policy that the build's `_headers` gives
it, so a script the policy forbids fails here as it would on a host.
"""

import functools
import http.server
import socketserver
import threading
import urllib.parse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait


def policies(root, base):
    """Each `_headers` pattern's Content-Security-Policy, most specific last."""
    rules, pattern = [], None
    for line in open(f"{root}{base}_headers", encoding="utf-8"):
        if line.startswith("/"):
            pattern = line.strip()
        elif line.strip().startswith("Content-Security-Policy:"):
            rules.append((pattern, line.split(":", 1)[1].strip()))
    return rules


def policy_for(path, rules):
    found = None
    for pattern, policy in rules:
        prefix = pattern.rstrip("*")
        if path == pattern or (pattern.endswith("*") and path.startswith(prefix)):
            found = policy  # the later, more specific rule replaces (Netlify's reading)
    return found


class Handler(http.server.SimpleHTTPRequestHandler):
    rules = []
    # Every path asked for, in order.
    asked = []

    def end_headers(self):
        path = urllib.parse.urlsplit(self.path).path
        Handler.asked.append(path)
        policy = policy_for(path, self.rules)
        if policy:
            self.send_header("Content-Security-Policy", policy)
        super().end_headers()

    def log_message(self, *args):
        pass


def start(chromedriver, root, base, handler_class=Handler):
    """The site under ROOT, at BASE, served with its `_headers` policies, and a browser."""
    handler_class.rules = policies(root, base)
    handler = functools.partial(handler_class, directory=root)
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    site = f"http://127.0.0.1:{server.server_address[1]}{base}"
    options = webdriver.ChromeOptions()
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    return server, site, driver, WebDriverWait(driver, 20)
