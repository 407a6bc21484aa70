#!/usr/bin/env bash
# Runs the browser tests (`*.browser.test.ts`: the console, OAuth sign-in pages) in headless Chromium from Debian's
# packages (Playwright's own browser download does not work on our machines). Used by CI; needs root for apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/debian-packages.sh
debian_packages test-browser Chromium chromium
echo "test-browser: $(chromium --version)"
npx -y pnpm@10 test:browser
