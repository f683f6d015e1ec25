#!/usr/bin/env bash
# The Python wheel end to end, as the people who run MCP servers install it:
#   1. build vetch-cli with maturin (`bindings = "bin"`: the wheel carries the release binary);
#   2. pip-install it into a fresh virtualenv and run one MCP session through the official
#      Python SDK (`mcp`) against that venv's `vetch mcp`: initialize, tools/list, and a
#      tools/call on a page served on loopback (scripts/mcp-sdk-session.py; no outside
#      network);
#   3. the same session through `uvx --offline --from WHEEL vetch mcp`, then `uv tool
#      install` and `pipx install` of the wheel, each answering `vetch --version`.
#
#   scripts/wheel-mcp.sh                          build (release profile, as published), check
#   VETCH_WHEEL=dist/vetch_cli-....whl scripts/wheel-mcp.sh   check a wheel built elsewhere
#
# Needs python3 (with venv and pip) and cargo. maturin, mcp, uv and pipx come from PyPI into
# virtualenvs under target/wheel/ (nothing is installed system-wide). CI runs it after the
# tests (.ci/run). Exits non-zero at the first step that fails.
set -euo pipefail
cd "$(dirname "$0")/.."

work=target/wheel
build_reqs=("maturin>=1.16,<2")
client_reqs=("mcp>=2.3,<3" "uv>=0.9,<1" "pipx>=1.7,<2")
start=$SECONDS
step() { printf '== %s (at %ss)\n' "$*" "$((SECONDS - start))"; }
pip_q() { "$1/bin/python" -m pip install -q --disable-pip-version-check "${@:2}"; }

# A venv that is made once and kept while its requirements stay the same.
venv_for() {
  local dir=$1
  shift
  if [ ! -x "$dir/bin/python" ] || [ "$(cat "$dir/.reqs" 2>/dev/null)" != "$*" ]; then
    rm -rf "$dir"
    python3 -m venv "$dir"
    pip_q "$dir" "$@"
    echo "$*" >"$dir/.reqs"
  fi
}

mkdir -p "$work"
wheel=${VETCH_WHEEL:-}
if [ -z "$wheel" ]; then
  step "maturin into $work/build-venv"
  venv_for "$work/build-venv" "${build_reqs[@]}"
  "$work/build-venv/bin/maturin" --version
  step "maturin build --release"
  rm -rf "$work/dist"
  "$work/build-venv/bin/maturin" build --release --locked --out "$work/dist"
  wheel=$(ls "$work"/dist/vetch_cli-*.whl)
fi
wheel=$(realpath "$wheel")
printf 'wheel: %s (%s bytes)\n' "$(basename "$wheel")" "$(stat -c %s "$wheel")"

step "pip install the wheel into a fresh venv"
rm -rf "$work/venv"
python3 -m venv "$work/venv"
pip_q "$work/venv" "$wheel"
vetch=$(realpath "$work/venv/bin/vetch")
"$vetch" --version

step "the MCP SDK, uv and pipx into $work/client-venv"
venv_for "$work/client-venv" "${client_reqs[@]}"
client=$(realpath "$work/client-venv")
"$client/bin/python" -m pip list --disable-pip-version-check 2>/dev/null | grep -E '^(mcp|uv|pipx) '

step "MCP session through the SDK: $vetch mcp"
"$client/bin/python" scripts/mcp-sdk-session.py "$vetch" mcp

# uv and pipx keep their caches and tools under target/wheel, never in $HOME.
export UV_CACHE_DIR=$PWD/$work/uv-cache UV_TOOL_DIR=$PWD/$work/uv-tools \
  UV_TOOL_BIN_DIR=$PWD/$work/uv-bin PIPX_HOME=$PWD/$work/pipx PIPX_BIN_DIR=$PWD/$work/pipx-bin
step "MCP session through the SDK: uvx --offline --from WHEEL vetch mcp"
"$client/bin/python" scripts/mcp-sdk-session.py "$client/bin/uvx" --offline --from "$wheel" vetch mcp

step "uv tool install WHEEL"
"$client/bin/uv" tool install --offline --force "$wheel"
"$PWD/$work/uv-bin/vetch" --version

step "pipx install WHEEL"
"$client/bin/pipx" install --force "$wheel"
"$PWD/$work/pipx-bin/vetch" --version

step "wheel check passed"
echo "wheel check: $((SECONDS - start)) s"
