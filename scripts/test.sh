#!/usr/bin/env bash
# Run every test: the engine, rules against real Dynamo, fixes, the language server, and (when the
# editor tooling is present) the VS Code extension, grammar and Neovim tests.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -m pytest tests -q -p no:cacheprovider "$@"
if [ -f .ci/editor.sh ] && [ -z "${FULLGRAPH_SKIP_EDITOR:-}" ]; then
  bash .ci/editor.sh
fi
