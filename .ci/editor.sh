#!/usr/bin/env bash
# Editor integration CI: the VS Code extension (build, typecheck, lint, grammar, .vsix contents), Neovim, and the
# packaged extension in a real VS Code (code-server + Chromium).
#
# Run from anywhere, after .venv exists with the server installed (`.venv/bin/python -m fullgraph lsp` works):
#   bash .ci/editor.sh
# Installs what it needs: Debian packages (apt-get update once, only if one is missing), root npm packages
# (`npm ci`), code-server 4.100.3 in tests/e2e/code-server. Every step runs even if an earlier one failed (unless it
# needs that one's output); the exit status is non-zero if any failed. Screenshots and logs go to e2e-out/.
# Environment: FULLGRAPH_SKIP_E2E=1 skips the code-server step (the slowest: ~1-5 min install, ~1 min test).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY="$ROOT/.venv/bin/python"
export ROOT PY
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

START=$(date +%s)
declare -a RESULTS=()
PASSED=0
FAILED=0

# step NAME TIMEOUT_SECONDS COMMAND...: run, time and record one step.
step() {
  local name=$1 limit=$2
  shift 2
  echo
  echo "=== editor: $name"
  local t0 rc
  t0=$(date +%s)
  # through bash -c so that the shell functions below (exported) can be steps too
  timeout --kill-after=15 "$limit" bash -c '"$@"' step "$@"
  rc=$?
  local dt=$(( $(date +%s) - t0 ))
  if [ "$rc" -eq 0 ]; then
    PASSED=$((PASSED + 1))
    RESULTS+=("$(printf '%-34s %5ss  ok' "$name" "$dt")")
  else
    FAILED=$((FAILED + 1))
    [ "$rc" -eq 124 ] && echo "=== editor: $name timed out after ${limit}s"
    RESULTS+=("$(printf '%-34s %5ss  FAILED (exit %s)' "$name" "$dt" "$rc")")
  fi
  echo "=== editor: $name: exit $rc in ${dt}s"
  return "$rc"
}

skip() {
  FAILED=$((FAILED + 1))
  RESULTS+=("$(printf '%-34s %5s   FAILED (not run: %s)' "$1" "-" "$2")")
  echo "=== editor: $1: not run: $2"
}

apt_packages() {
  # Fonts: chromium only recommends them, and the end-to-end test measures rendered text on a line with CJK
  # characters and an emoji (which would otherwise be drawn as empty boxes in the screenshots).
  local pkgs=(chromium fonts-liberation fonts-dejavu-core fonts-wqy-microhei fonts-noto-color-emoji
    neovim ripgrep pkg-config libkrb5-dev)
  local missing=()
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "all present: ${pkgs[*]}"
    return 0
  fi
  echo "installing: ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

check_venv() {
  "$PY" -m fullgraph lsp --help >/dev/null && "$PY" -c "import fullgraph, pytest; print('fullgraph', fullgraph.__version__)"
}

code_server_install() {
  local dir="$ROOT/tests/e2e/code-server"
  local have
  have=$(node -p "require('$dir/node_modules/code-server/package.json').version" 2>/dev/null || true)
  if [ "$have" = "4.100.3" ] && [ -x "$dir/node_modules/.bin/code-server" ]; then
    echo "code-server $have already installed"
    return 0
  fi
  # @vscode/ripgrep's postinstall downloads rg from GitHub, which is unreachable: seed its cache with Debian's rg.
  local cache="${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11"
  mkdir -p "$cache"
  tar czf "$cache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C /usr/bin rg
  # npm_config_yes: node-pty's postinstall runs `npx node-gyp`, which an npmrc with yes=false refuses.
  # npm_config_unsafe_perm: code-server's postinstall.sh refuses to run as root without it.
  (cd "$dir" && npm_config_yes=true npm_config_unsafe_perm=true npm ci --no-audit --no-fund --loglevel=error)
}

export -f apt_packages check_venv code_server_install

step "check .venv (fullgraph lsp)" 120 check_venv
VENV_OK=$?
[ "$VENV_OK" -eq 0 ] || echo "editor: $PY cannot run the server (run scripts/setup.sh first)"
step "apt packages" 900 apt_packages
step "npm ci" 600 npm ci --no-audit --no-fund --loglevel=error
NPM_OK=$?

if [ "$NPM_OK" -eq 0 ]; then
  step "typecheck (tsc)" 300 npm run -s typecheck
  step "lint (eslint)" 300 npm run -s lint
  step "client unit tests" 120 npm run -s test:unit
  step "grammar tests" 120 npm run -s test:grammar
  # all 8 archives (7 platforms + universal) into dist/vsix; wheels cached in build/wheels between the builds
  step "package .vsix (all targets)" 900 npm run -s package:all
  PACKAGE_OK=$?
else
  for s in "typecheck (tsc)" "lint (eslint)" "client unit tests" "grammar tests" "package .vsix (all targets)"; do
    skip "$s" "npm ci failed"
  done
  PACKAGE_OK=1
fi

if [ "$PACKAGE_OK" -eq 0 ] && [ "$VENV_OK" -eq 0 ]; then
  step "vsix contents (pytest)" 300 env FULLGRAPH_VSIX_DIR="$ROOT/dist/vsix" "$PY" -m pytest -q -p no:cacheprovider tests/vsix
else
  skip "vsix contents (pytest)" "no .vsix or no .venv"
fi

if [ "$VENV_OK" -eq 0 ]; then
  step "neovim headless" 240 bash tests/nvim/run.sh "$PY"
else
  skip "neovim headless" "no .venv"
fi

if [ -n "${FULLGRAPH_SKIP_E2E:-}" ]; then
  echo "=== editor: code-server e2e skipped (FULLGRAPH_SKIP_E2E set)"
elif [ "$PACKAGE_OK" -eq 0 ] && [ "$VENV_OK" -eq 0 ]; then
  if step "code-server install" 900 code_server_install; then
    rm -rf "$ROOT/e2e-out"
    step "code-server e2e" 900 env FULLGRAPH_E2E_PYTHON="$PY" FULLGRAPH_E2E_OUT="$ROOT/e2e-out" \
      FULLGRAPH_VSIX="$ROOT/dist/vsix/fullgraph-linux-x64.vsix" \
      node --test --test-reporter=spec tests/e2e/
  else
    skip "code-server e2e" "code-server install failed"
  fi
else
  skip "code-server e2e" "no .vsix or no .venv"
fi

echo
echo "=== editor: summary"
printf '%s\n' "${RESULTS[@]}"
echo "editor total $(( $(date +%s) - START ))s"
echo "editor: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
