#!/usr/bin/env bash
# Hostile bodies (issue 12) at 1 MB, 5 MB and the default cap (5 MiB), and the hostile PDFs
# of tests/fixtures/pdf/hostile/ (issue 25, made by scripts/make-hostile-pdfs.py): wall time,
# CPU time (user + system) and peak RSS of one `vetch lookup` each, in auto mode, from GNU
# time. Targets: peak RSS under 64 MB for the HTML/JSON bodies and under 256 MiB for the PDFs,
# and CPU under the lookup deadline (40 s) for every body.
# Measured on a loaded 2-core machine (release, issue 12): every body under 0.45 s of CPU;
# peak RSS highest for 5 MiB of `<span class="c">w </span>` (61 MB), then entity-dense
# text (45 MB) and 100,000 `<b>` elements (44 MB).
# Prerequisites: cargo, python3 (bodies and a loopback file server), GNU time.
# VETCH_SKIP_BUILD=1 skips the release build; VETCH_BIN overrides the binary; ONLY=REGEX
# picks bodies by file name (e.g. ONLY=1MB).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${VETCH_SKIP_BUILD:-}" ] || cargo build --release --quiet --bin vetch
VETCH=${VETCH_BIN:-./target/release/vetch}
export XDG_CACHE_HOME=$(mktemp -d)  # never the user's HTTP cache
DIR=$(mktemp -d)
trap 'kill ${SERVER_PID:-0} 2>/dev/null || true; rm -rf "$DIR"' EXIT

python3 - "$DIR" <<'EOF'
import sys, os
d = sys.argv[1]
sizes = {"1MB": 1_000_000, "5MB": 5_000_000, "cap": 5 * 1024 * 1024}
def fill(unit, n, head="", tail=""):
    body = unit * ((n - len(head) - len(tail)) // len(unit))
    return head + body + tail
for name, n in sizes.items():
    half = n // 2
    kinds = {
        # Deep JSON: [[[[...]]]]
        f"deep-json-{name}.json": "[" * half + "]" * (n - half),
        # Many values 120 levels down
        f"wide-json-{name}.json": "[" * 120 + "1," * ((n - 241) // 2) + "1" + "]" * 120,
        # One element with as many attributes as fit
        f"attrs-{name}.html": fill(" a", n, "<html><body><div", "><p>after</p></div></body></html>"),
        # One attribute value dense in entities
        f"attrval-{name}.html": fill("a &amp; b ", n, '<html><body><div data-x="', '">x</div></body></html>'),
        # Entity-dense text
        f"amp-{name}.html": fill("a &amp; b ", n, "<html><body><p>", "</p></body></html>"),
        # Many small elements
        f"elements-{name}.html": fill("<b>x</b>", n, "<html><body><p>", "</p></body></html>"),
        # Deep nesting
        f"nest-{name}.html": fill("<div>", n, "<html><body>", "x</body></html>"),
        # Sibling inline runs with attributes
        f"inline-{name}.html": fill('<span class="c">w </span>', n, "<html><body><p>", "</p></body></html>"),
    }
    for fname, text in kinds.items():
        with open(os.path.join(d, fname), "w") as f:
            f.write(text)
EOF

cp tests/fixtures/pdf/hostile/*.pdf "$DIR"/

PORT_FILE="$DIR/port"
python3 - "$DIR" "$PORT_FILE" <<'EOF' &
import sys, http.server, functools, socketserver
d, port_file = sys.argv[1], sys.argv[2]
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass
h = functools.partial(Quiet, directory=d)
with socketserver.ThreadingTCPServer(("127.0.0.1", 0), h) as s:
    open(port_file + ".tmp", "w").write(str(s.server_address[1]))
    __import__("os").rename(port_file + ".tmp", port_file)
    s.serve_forever()
EOF
SERVER_PID=$!
for _ in $(seq 1 200); do [ -s "$PORT_FILE" ] && break; sleep 0.05; done
PORT=$(cat "$PORT_FILE")

printf '%-26s %9s %9s %9s  %s\n' body wall_s cpu_s rss_MB "outcome"
for f in $(cd "$DIR" && ls *.json *.html *.pdf | sort | grep -E "${ONLY:-.}"); do
  [ "$f" = port ] && continue
  log="$DIR/time.log"
  out=$(/usr/bin/time -v "$VETCH" --allow-private lookup -o receipt --compact \
        "http://127.0.0.1:$PORT/$f" 2>"$log" || true)
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; printf "%.2f", s}' "$log")
  cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.2f", u+s}' "$log")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2/1024}' "$log")
  outcome=$(python3 -c 'import json,sys
try:
    r=json.loads(sys.argv[1]); a=r["attempts_log"][-1]
    print(a["outcome"], r["content_chars"], "chars", ("truncated" if r.get("truncated") else ""))
except Exception as e: print("no receipt", e)' "$out")
  printf '%-26s %9s %9s %9s  %s\n' "$f" "$wall" "$cpu" "$rss" "$outcome"
done
