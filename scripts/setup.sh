#!/usr/bin/env bash
# Set up a development environment in .venv: fullgraph (editable) with its test dependencies and
# torch 2.13.0 (CPU build; pinned so pip never pulls a multi-GB CUDA build).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet "torch==2.13.0"
.venv/bin/python -m pip install --quiet -e "./server[test]" numpy scipy tqdm
# a followed library for the end-to-end test of its undecided breaks (tests/e2e/conditional.test.js)
.venv/bin/python -m pip install --quiet "transformers==5.24.0"
.venv/bin/python -c "import fullgraph, torch; print('fullgraph', fullgraph.__version__, '| torch', torch.__version__)"
