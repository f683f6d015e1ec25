"""Run `vetch batch` as a Spark map step: each partition's lines go through one vetch
process on its executor, and each output line is one tool result (NDJSON).

Usage:
    python3 examples/spark_batch.py URLS_FILE [OUT_DIR]

Environment:
    VETCH_BIN     the vetch binary (default: `vetch` found on this PATH, made absolute)
    VETCH_CONFIG  a config file every executor can read (passed on explicitly)
    VETCH_ARGS    extra arguments for `vetch batch` (e.g. "--allow-private --concurrency 8")
    SPARK_MASTER  default local[2]

Two things that are easy to get wrong, and why this file does what it does:
- RDD.pipe starts the child with an EMPTY environment unless `env=` is given: no PATH
  (so a bare `vetch` is not found), no VETCH_CONFIG, no API keys. We pass an absolute
  binary path and an explicit env with exactly what vetch needs.
- vetch exits 1 when any line of its batch failed. That is a verdict on the data, not a
  crash, so keep checkCode=False and judge each line's "status" instead.
"""

import json
import os
import shlex
import shutil
import sys

from pyspark import SparkConf, SparkContext

# Variables a vetch process may need on an executor; add your providers' keys here.
PASS_THROUGH = ["VETCH_CONFIG", "HOME", "JINA_API_KEY", "FIRECRAWL_API_KEY", "SCRAPINGBEE_API_KEY"]


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    urls_file = sys.argv[1]
    vetch = os.environ.get("VETCH_BIN") or shutil.which("vetch")
    if not vetch:
        print("vetch not found: set VETCH_BIN or put vetch on PATH", file=sys.stderr)
        return 2
    vetch = os.path.abspath(vetch)
    command = [vetch, "batch"] + shlex.split(os.environ.get("VETCH_ARGS", ""))

    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    env.update({k: os.environ[k] for k in PASS_THROUGH if os.environ.get(k)})

    conf = (
        SparkConf()
        .setMaster(os.environ.get("SPARK_MASTER", "local[2]"))
        .setAppName("vetch-batch")
        # Local runs: keep the driver on loopback (no hostname lookups, no open ports).
        .set("spark.driver.host", "127.0.0.1")
        .set("spark.driver.bindAddress", "127.0.0.1")
        .set("spark.ui.enabled", "false")
    )
    sc = SparkContext(conf=conf)
    sc.setLogLevel("ERROR")
    try:
        lines = sc.textFile(urls_file, minPartitions=2)
        # RDD.pipe takes a string and splits it with shlex; quote each part.
        results = lines.pipe(" ".join(shlex.quote(c) for c in command), env=env, checkCode=False)
        parsed = results.map(json.loads).cache()
        total = parsed.count()
        ok = parsed.filter(lambda r: r.get("status") == "success").count()
        print(f"{total} lookups: {ok} success, {total - ok} error")
        if len(sys.argv) > 2:
            parsed.map(lambda r: json.dumps(r, ensure_ascii=False)).saveAsTextFile(sys.argv[2])
        for r in parsed.filter(lambda r: r.get("status") != "success").take(5):
            receipt = r["content"][0]["json"]
            print(f"  failed: {receipt['url']}: {r['content'][1]['text']}")
    finally:
        sc.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
