#!/usr/bin/env bash
# An operator rule with a line allowlist on a one-line page (issue 24, item 10): wall time,
# CPU time (user + system) and peak RSS of one `vetch lookup` of a 3.6 MB page that is one
# line holding ~110,000 matches of the rule, with `regexTarget = "line"`. Before the fix the
# allowlist's regexes ran over the whole line once per match (117-130 s against a 12 s
# deadline); each line is now found in one forward pass and matched once.
# Target: within the 12 s deadline of tests/it/hostile.rs's rows, with a wide margin.
# Prerequisites: cargo, python3 (the page and a loopback file server), GNU time.
# VETCH_SKIP_BUILD=1 skips the release build; VETCH_BIN overrides the binary (to compare an
# older build); TIMEOUT (default 300) bounds a run of an older, quadratic build.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${VETCH_SKIP_BUILD:-}" ] || cargo build --release --quiet --bin vetch
VETCH=${VETCH_BIN:-./target/release/vetch}
export XDG_CACHE_HOME=$(mktemp -d)  # never the user's HTTP cache
DIR=$(mktemp -d)
trap 'kill ${SERVER_PID:-0} 2>/dev/null || true; rm -rf "$DIR" "$XDG_CACHE_HOME"' EXIT

python3 - "$DIR" <<'PY'
import sys, random
d = sys.argv[1]
random.seed(7)
parts, size = [], 0
while size < 3_600_000:
    tok = "corp_" + "".join(random.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(12))
    w = tok + " and some words "
    parts.append(w)
    size += len(w)
open(f"{d}/one-line.txt", "w").write("Notes: " + "".join(parts) + "\n")
open(f"{d}/rules.toml", "w").write("""[[rules]]
id = "corp-token"
regex = '''corp_[a-z0-9]{12}'''
[[rules.allowlists]]
regexTarget = "line"
regexes = ['''NOT-ON-THIS-LINE''']
""")
PY

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
(cd "$DIR" && exec python3 -m http.server "$PORT" --bind 127.0.0.1 >/dev/null 2>&1) &
SERVER_PID=$!
for _ in $(seq 1 100); do
  curl -s -o /dev/null "http://127.0.0.1:$PORT/rules.toml" && break
  sleep 0.05
done
cat >"$DIR/config.toml" <<CFG
[lookup]
deadline_secs = 12
attempt_timeout_secs = 10
[network]
allow_private = true
[redaction]
extra_rules = "rules.toml"
[[providers]]
name = "direct"
kind = "http"
CFG

LOG=$(mktemp)
/usr/bin/time -v timeout "${TIMEOUT:-300}" "$VETCH" --config "$DIR/config.toml" lookup \
  "http://127.0.0.1:$PORT/one-line.txt" -o receipt --extract raw >"$DIR/out.json" 2>"$LOG" || true
python3 - "$DIR/out.json" "$LOG" <<'PY'
import sys, json, re
log = open(sys.argv[2]).read()
get = lambda k: re.search(re.escape(k) + r": (.*)", log).group(1)
cpu = float(get("User time (seconds)")) + float(get("System time (seconds)"))
try:
    r = json.load(open(sys.argv[1]))
    outcome = f"ok={r['ok']} {r['attempts_log'][0]['outcome']} ({r['attempts_log'][0]['detail']})"
except Exception:
    outcome = "no receipt (killed by TIMEOUT)"
print(f"one-line 3.6 MB, line allowlist: wall {get('Elapsed (wall clock) time (h:mm:ss or m:ss)')}, "
      f"CPU {cpu:.2f} s, peak RSS {int(get('Maximum resident set size (kbytes)'))/1024:.0f} MB, {outcome}")
PY
rm -f "$LOG"
