#!/usr/bin/env bash
# Quick start: installs what is missing, builds the release preset and runs
# hsakmt-info with its smoke job (an SDMA copy through a user queue on every
# GPU; on real /dev/kfd when present, else the simulated board). Extra
# arguments go to hsakmt-info, e.g. tools/quickstart.sh --json
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target hsakmt-info >/dev/null
exec build/release/tools/hsakmt-info --smoke "$@"
