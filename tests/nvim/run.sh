#!/usr/bin/env bash
# Headless Neovim smoke test of `python -m fullgraph lsp` on the end-to-end model (tests/e2e/workspace/model.py).
# Usage: tests/nvim/run.sh [python]   (default: .venv/bin/python, which must have fullgraph installed)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PY="${1:-$ROOT/.venv/bin/python}"
WS="$(mktemp -d "${TMPDIR:-/tmp}/fullgraph-nvim-XXXXXX")"
trap 'rm -rf "$WS"' EXIT
cp "$ROOT/tests/e2e/workspace/model.py" "$WS/model.py"
cd "$WS"
# -n: no swap file; -i NONE: no shada; the init file replaces the user's config.
FULLGRAPH_PY="$PY" timeout 180 nvim --headless -n -i NONE -u "$ROOT/tests/nvim/init.lua" model.py
