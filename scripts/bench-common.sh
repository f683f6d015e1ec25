# Shared by the benchmark scripts: build release binaries, start the loopback server.
# Prerequisites: cargo, curl, GNU time (/usr/bin/time), xargs, python3 (for medians).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${VETCH_SKIP_BUILD:-}" ] || cargo build --release --quiet --bin vetch --example bench_server
VETCH=${VETCH:-./target/release/vetch}  # another binary to compare: VETCH=path VETCH_SKIP_BUILD=1
# The HTTP cache is on by default: benchmarks never read or fill the user's own, and the
# throughput scripts pass --no-cache so that they keep measuring fetches.
export XDG_CACHE_HOME=${BENCH_CACHE_HOME:-$(mktemp -d)}
SERVER_OUT=$(mktemp)
start_server() { # $1 = number of ports, $2 = delay in ms
  ./target/release/examples/bench_server "$1" "$2" >"$SERVER_OUT" &
  SERVER_PID=$!
  trap 'kill $SERVER_PID 2>/dev/null || true; rm -f "$SERVER_OUT"' EXIT
  for _ in $(seq 1 200); do
    grep -q '^PORTS' "$SERVER_OUT" 2>/dev/null && break
    sleep 0.05
  done
  read -r -a PORTS <<<"$(sed -n 's/^PORTS //p' "$SERVER_OUT")"
}
# Peak RSS in MB and wall seconds of a command, from GNU time.
measure() {
  local log; log=$(mktemp)
  /usr/bin/time -v "$@" >/dev/null 2>"$log" || true
  local rss wall
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2/1024}' "$log")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log")
  rm -f "$log"
  echo "$rss MB peak RSS, wall $wall"
}
