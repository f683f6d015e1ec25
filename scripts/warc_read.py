#!/usr/bin/env python3
"""Read a WARC file with warcio, a reader vetch did not write, and print its records as
JSON for the tests (tests/it/warc.rs) to check against what their servers sent.

Usage: warc_read.py FILE   (needs `pip install warcio`; the tests make a venv for it)

One object per record, in file order: the record's type and WARC headers as warcio parsed
them, the HTTP start line and headers of request and response records, the payload (the
bytes after the HTTP head, as stored: warcio is told not to decode anything) in hex,
and warcio's own digest verdict (`passed` is true only when it recomputed the block digest,
and the payload digest where there is one, and both matched).
"""

import json
import sys

from warcio.archiveiterator import ArchiveIterator


def main(path):
    records = []
    with open(path, "rb") as f:
        it = ArchiveIterator(f, check_digests=True)
        for rec in it:
            payload = rec.raw_stream.read()
            http = None
            if rec.http_headers is not None:
                http = {
                    "statusline": rec.http_headers.statusline,
                    "protocol": rec.http_headers.protocol,
                    "headers": [list(h) for h in rec.http_headers.headers],
                }
            records.append(
                {
                    "type": rec.rec_type,
                    "offset": it.get_record_offset(),
                    "headers": [list(h) for h in rec.rec_headers.headers],
                    "http": http,
                    "payload_hex": payload.hex(),
                    "digest_passed": rec.digest_checker.passed,
                    "problems": list(rec.digest_checker.problems),
                }
            )
    json.dump(records, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
