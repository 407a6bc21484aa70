#!/usr/bin/env bash
# Runs the test suite once more on the current Node LTS (22), installed from the npm registry into .tmp/node22;
# the default run uses the machine's Node (20). supabase-js deprecates Node 20, so both must pass.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=.tmp/node22
if [ ! -x "$prefix/node_modules/node/bin/node" ]; then
  npm install --silent --no-save --no-package-lock --prefix "$prefix" node@22 >/dev/null
fi
bin=$(cd "$prefix/node_modules/node/bin" && pwd)
echo "test-node22: $("$bin/node" --version)"
PATH="$bin:$PATH" npx -y pnpm@10 test
