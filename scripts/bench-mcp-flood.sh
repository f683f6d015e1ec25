#!/usr/bin/env bash
# A flood of MCP calls (issue 24): peak RSS, wall and CPU time of one `vetch mcp` session
# that receives CALLS (default 400) tools/call requests at once, each for its own 2 MiB
# page on a loopback server, and how many were answered without isError.
# Target: peak RSS under 256 MiB with the default [mcp] max_calls_in_flight (16).
# Measured on a loaded 2-core machine (release, issue 24, two runs each): before the
# bound, 1193-1283 MB peak RSS and 299-349 of the 400 calls timed out waiting for a core
# (every call held its page at once); with the default bound of 16, 156-165 MB and all 400
# answered with content (43-53 s of wall time, 27 s of CPU).
# Prerequisites: cargo, python3 (pages and a loopback server), GNU time (/usr/bin/time).
# VETCH_SKIP_BUILD=1 skips the release build; VETCH_BIN=path measures another binary (e.g.
# one built from an older commit); CALLS=N; SLOTS=N sets [mcp] max_calls_in_flight (an
# older binary without the key rejects a config that sets it: leave SLOTS unset there).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${VETCH_SKIP_BUILD:-}" ] || cargo build --release --quiet --bin vetch
VETCH=${VETCH_BIN:-./target/release/vetch}
CALLS=${CALLS:-400}
DIR=$(mktemp -d)
trap 'kill ${SERVER_PID:-0} 2>/dev/null || true; rm -rf "$DIR"' EXIT
export XDG_CACHE_HOME="$DIR/cache"  # never the user's HTTP cache

# One 2 MiB article page, served on every path but /robots.txt (404).
PORT_FILE="$DIR/port"
python3 - "$PORT_FILE" <<'EOF' &
import sys, os, http.server, socketserver
port_file = sys.argv[1]
para = ("<p>Ownership is a set of rules that govern how a program manages memory. "
        "Every value has an owner, there is one owner at a time, and the value is "
        "dropped when its owner goes out of scope. Borrowing lends access without "
        "moving it.</p>\n")
head = "<!doctype html><html><head><title>A long page</title></head><body><article><h1>A long page</h1>\n"
tail = "</article></body></html>\n"
body = (head + para * ((2 * 1024 * 1024 - len(head) - len(tail)) // len(para)) + tail).encode()
class Page(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_GET(self):
        if self.path == "/robots.txt":
            self.send_response(404); self.send_header("Content-Length", "0"); self.end_headers(); return
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    request_queue_size = 1024
with Server(("127.0.0.1", 0), Page) as s:
    open(port_file + ".tmp", "w").write(str(s.server_address[1]))
    os.rename(port_file + ".tmp", port_file)
    s.serve_forever()
EOF
SERVER_PID=$!
for _ in $(seq 1 200); do [ -s "$PORT_FILE" ] && break; sleep 0.05; done
PORT=$(cat "$PORT_FILE")

CFG="$DIR/config.toml"
{
  printf '[network]\nallow_private = true\n[cache]\nenabled = false\n'
  [ -z "${SLOTS:-}" ] || printf '[mcp]\nmax_calls_in_flight = %s\n' "$SLOTS"
  printf '[[providers]]\nname = "direct"\nkind = "http"\n'
} >"$CFG"

python3 - "$PORT" "$CALLS" >"$DIR/in.ndjson" <<'EOF'
import json, sys
port, calls = sys.argv[1], int(sys.argv[2])
print(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"}}}))
print(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
for i in range(1, calls + 1):
    print(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
        "name": "verified_web_lookup",
        "arguments": {"url": f"http://127.0.0.1:{port}/p/{i}", "max_chars": 200}}}))
EOF

LOG="$DIR/time.log"
/usr/bin/time -v "$VETCH" mcp --config "$CFG" <"$DIR/in.ndjson" >"$DIR/out.ndjson" 2>"$LOG" || true
rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2/1024}' "$LOG")
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$LOG")
cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.2f", u+s}' "$LOG")
answered=$(python3 - "$DIR/out.ndjson" <<'EOF'
import collections, json, sys
ok = err = 0
why = collections.Counter()
for line in open(sys.argv[1]):
    v = json.loads(line)
    if v.get("id", 0) == 0 or "result" not in v:
        continue
    if v["result"].get("isError"):
        err += 1
        log = v["result"].get("structuredContent", {}).get("attempts_log") or [{}]
        why[(log[-1].get("detail") or "?")[:60]] += 1
    else:
        ok += 1
common = "; ".join(f"{n}x {d}" for d, n in why.most_common(2))
print(f"{ok} ok, {err} isError" + (f" ({common})" if err else ""))
EOF
)
echo "$CALLS calls on 2 MiB pages (slots: ${SLOTS:-default}): peak RSS $rss MB, wall $wall, CPU ${cpu}s; answered: $answered"
