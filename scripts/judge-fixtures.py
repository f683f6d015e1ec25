#!/usr/bin/env python3
"""The judge's figures on the interstitial fixtures, for one or more vetch binaries side by
side (before and after a change):

    scripts/judge-fixtures.py BIN [BIN ...]

Every file under tests/fixtures/interstitial/{challenge,genuine}/ is served from a loopback
server and looked up with `vetch batch` (the default settings, `--no-cache`), in `auto`
and `text` modes. Prints, per binary and mode, how many challenge pages were caught
(`unusable_content`) and how many genuine pages came back `success`, then every fixture
whose outcome or detail differs between the binaries. Nothing is fetched from outside.
"""

import http.server
import json
import subprocess
import sys
import threading
from pathlib import Path

MODES = ("auto", "text", "raw")
ROOT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "interstitial"


class Pages(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        path = ROOT / self.path.lstrip("/")
        if not path.is_file() or ROOT not in path.resolve().parents:
            self.send_response(404)
            self.end_headers()
            return
        body = path.read_bytes()
        kind = {".json": "application/json", ".md": "text/markdown; charset=utf-8"}.get(
            path.suffix, "text/html; charset=utf-8"
        )
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def run(vetch, urls, mode):
    res = subprocess.run(
        [vetch, "--allow-private", "--compact", "batch", "--no-cache", "--extract", mode, "-"],
        input="\n".join(urls) + "\n",
        capture_output=True,
        text=True,
    )
    out = []
    for line in res.stdout.splitlines():
        r = json.loads(line)
        a = r["content"][0]["json"]["attempts_log"]
        out.append((r["status"], a[0]["detail"] if a else ""))
    if len(out) != len(urls):
        sys.exit(f"{vetch}: {len(out)} results for {len(urls)} pages\n{res.stderr}")
    return out


def main():
    bins = sys.argv[1:]
    if not bins:
        sys.exit(__doc__)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    pages = [
        (kind, p.name)
        for kind in ("challenge", "genuine")
        for p in sorted((ROOT / kind).iterdir())
        if p.is_file()
    ]
    urls = [f"{base}/{kind}/{name}" for kind, name in pages]
    results = {}
    for b in bins:
        for mode in MODES:
            results[(b, mode)] = run(b, urls, mode)
            caught = sum(
                1 for (k, _), (s, _) in zip(pages, results[(b, mode)]) if k == "challenge" and s == "error"
            )
            passed = sum(
                1 for (k, _), (s, _) in zip(pages, results[(b, mode)]) if k == "genuine" and s == "success"
            )
            n_ch = sum(1 for k, _ in pages if k == "challenge")
            n_ge = len(pages) - n_ch
            print(f"{b} {mode:>4}: challenge caught {caught}/{n_ch}, genuine success {passed}/{n_ge}")
    diffs = 0
    for i, (kind, name) in enumerate(pages):
        for mode in MODES:
            seen = {results[(b, mode)][i] for b in bins}
            if len(seen) > 1:
                diffs += 1
                print(f"differs {kind}/{name} {mode}: " + " | ".join(f"{b}: {results[(b, mode)][i]}" for b in bins))
    print(f"fixtures whose outcome or detail differs: {diffs}")
    server.shutdown()


if __name__ == "__main__":
    main()
