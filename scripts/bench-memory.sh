#!/usr/bin/env bash
# Peak memory of `vetch lookup` on a 200 MB body and a gzip bomb, default 5 MiB cap.
# Target (issue 4): peak RSS under 40 MB in both.
source "$(dirname "$0")/bench-common.sh"
start_server 1 0
P=${PORTS[0]}
echo "200 MB body:  $(measure $VETCH --allow-private lookup --compact http://127.0.0.1:$P/big)"
echo "gzip bomb:    $(measure $VETCH --allow-private lookup --compact http://127.0.0.1:$P/bomb)"
$VETCH --allow-private lookup -o receipt --compact "http://127.0.0.1:$P/bomb" | head -c 400; echo
