#!/usr/bin/env bash
# Run examples/spark_batch.py against pages served on loopback, when pyspark and Java are
# installed; otherwise say what is missing and skip (exit 0). Nothing is installed here.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v java >/dev/null 2>&1 || missing+=("java")
python3 -c 'import pyspark' >/dev/null 2>&1 || missing+=("pyspark (pip install pyspark)")
if ((${#missing[@]})); then
    echo "spark-example: skipped: not installed: ${missing[*]}"
    exit 0
fi

cargo build --quiet
export SPARK_LOCAL_IP=127.0.0.1   # no hostname lookups for a local run
bin="$PWD/target/debug/vetch"
work="$(mktemp -d)"
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT

mkdir -p "$work/site"
for i in 1 2 3; do
    cat >"$work/site/page$i.html" <<HTML
<!doctype html><html><head><title>Page $i</title></head><body><article><h1>Page $i</h1>
<p>This page is served on loopback for the Spark example. It has enough ordinary words to
be judged usable content by vetch, and nothing else worth mentioning.</p></article></body></html>
HTML
done
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work/site" >/dev/null 2>&1 &
server=$!
# Wait for the server by polling its port (bounded), not by sleeping a fixed time.
for _ in $(seq 100); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.1)" 2>/dev/null && break
done
{
    for i in 1 2 3; do echo "http://127.0.0.1:$port/page$i.html"; done
    echo "http://127.0.0.1:$port/missing.html"
} >"$work/urls.txt"

out=$(VETCH_BIN="$bin" VETCH_ARGS="--allow-private --concurrency 4" \
    python3 examples/spark_batch.py "$work/urls.txt")
echo "$out"
grep -q "^4 lookups: 3 success, 1 error$" <<<"$out" || {
    echo "spark-example: FAILED: expected 4 lookups: 3 success, 1 error"
    exit 1
}
echo "spark-example: ok"
