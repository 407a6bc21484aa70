// Headless Chromium for the browser tests (`*.browser.test.ts`, run by `pnpm test:browser`): Debian's `chromium`
// through playwright-core, since Playwright's own browser download does not work on our machines.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(executablePath)) {
    throw new Error(`no Chromium at ${executablePath}: run scripts/test-browser.sh (installs Debian's chromium)`);
  }
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}
