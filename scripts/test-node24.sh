#!/usr/bin/env bash
# Runs a command (by default the test suite) on the current Node LTS (24), the runtime production should use
# (README), installed from the npm registry into .tmp/node24 and put first on PATH; the default run uses the
# machine's Node (20, the oldest supported). CI runs the PostgreSQL 15 suite through it: `bash
# scripts/test-node24.sh bash scripts/test-postgres15.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=.tmp/node24
if [ ! -x "$prefix/node_modules/node/bin/node" ]; then
  npm install --silent --no-save --no-package-lock --prefix "$prefix" node@24 >/dev/null
fi
bin=$(cd "$prefix/node_modules/node/bin" && pwd)
echo "test-node24: $("$bin/node" --version)"
if [ "$#" -eq 0 ]; then set -- npx -y pnpm@10 test; fi
PATH="$bin:$PATH" "$@"
