#!/usr/bin/env bash
# Runs a command with Node 22 first on PATH (installed by .ci/node22.sh when absent).
set -euo pipefail
bin=$(bash "$(dirname "$0")/node22.sh")
export PATH="$(dirname "$bin"):$PATH"
exec "$@"
