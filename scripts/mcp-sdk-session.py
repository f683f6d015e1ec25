#!/usr/bin/env python3
"""One MCP session through the official Python MCP SDK (`mcp` on PyPI) against a vetch
command, the way an MCP client starts it: initialize, list the tools, call
verified_web_lookup on a page served on loopback (no outside network), print what came back.

Usage: mcp-sdk-session.py COMMAND [ARG...]
  e.g. mcp-sdk-session.py /venv/bin/vetch mcp
       mcp-sdk-session.py uvx --offline --from dist/vetch_cli-0.1.0-....whl vetch mcp

Exits 0 when the call succeeded with the page's content, 1 otherwise. The SDK's
stdio_client gives the server only HOME, LOGNAME, PATH, SHELL, TERM and USER plus what
`env` names, so the config (which opens 127.0.0.1 alone, with allow_private_hosts) and a
private cache directory are passed there, as a client's config would.
"""

import asyncio
import http.server
import json
import os
import sys
import tempfile
import threading

from mcp import ClientSession, StdioServerParameters, stdio_client

PAGE = b"""<!doctype html><html><head><title>Wheel check</title></head><body><article>
<h1>Wheel check</h1>
<p>Ownership is the set of rules that governs how a Rust program manages memory. This page
is served on loopback so that the installed vetch command can be called through MCP without
any outside network.</p>
<p>Each value has an owner; there is one owner at a time; when the owner goes out of scope
the value is dropped.</p></article></body></html>"""


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args):
        pass


async def session(command, args, env, url):
    params = StdioServerParameters(command=command, args=args, env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            init = await s.initialize()
            tools = await s.list_tools()
            result = await s.call_tool(
                "verified_web_lookup", {"url": url, "must_contain": "ownership"}
            )
    return (
        init.model_dump(mode="json", by_alias=True, exclude_none=True),
        [t.name for t in tools.tools],
        result.model_dump(mode="json", by_alias=True, exclude_none=True),
    )


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/ownership"
    with tempfile.TemporaryDirectory() as tmp:
        config = os.path.join(tmp, "config.toml")
        with open(config, "w") as f:
            f.write('[network]\nallow_private_hosts = ["127.0.0.1"]\n\n'
                    '[[providers]]\nname = "direct"\nkind = "http"\n')
        env = {"VETCH_CONFIG": config, "XDG_CACHE_HOME": os.path.join(tmp, "cache")}
        for name in ("UV_CACHE_DIR",):  # uvx's own cache, when the caller chose one
            if os.environ.get(name):
                env[name] = os.environ[name]
        init, tools, result = asyncio.run(session(argv[0], argv[1:], env, url))
    server.shutdown()
    receipt = result.get("structuredContent", {})
    texts = [c.get("text", "") for c in result.get("content", [])]
    print(json.dumps({
        "command": " ".join(argv),
        "serverInfo": init.get("serverInfo"),
        "protocolVersion": init.get("protocolVersion"),
        "tools": tools,
        "call_tool": {
            "isError": result.get("isError", False),
            "structuredContent": {k: receipt.get(k) for k in (
                "ok", "url", "attempts", "provider_used", "failure_reason",
                "content_chars", "title")},
            "text": texts[1][:72] + "..." if len(texts) > 1 else None,
        },
    }, indent=2))
    ok = (not result.get("isError", False) and receipt.get("ok") is True
          and len(texts) > 1 and "Ownership" in texts[1]
          and tools == ["verified_web_lookup"])
    if not ok:
        print("FAILED: the call did not return the page", file=sys.stderr)
        print(json.dumps(result, indent=2)[:4000], file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
