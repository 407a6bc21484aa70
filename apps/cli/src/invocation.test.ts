// The hints name the command of the installation: `pnpm start` in a checkout, `auction-ops start` from the npm
// package (its tree holds no pnpm-workspace.yaml). Issue 56, item 6.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startCommand, startHint } from './invocation.js';

const packageTree = mkdtempSync(join(tmpdir(), 'auction-ops-package-tree-'));
afterAll(() => rmSync(packageTree, { recursive: true, force: true }));

it('says pnpm start in this checkout', () => {
  expect(startCommand()).toBe('pnpm start');
  expect(startHint('/srv/restored')).toBe('DATA_DIR=/srv/restored pnpm start');
});

it('says auction-ops start where the package is installed', () => {
  expect(startCommand(packageTree)).toBe('auction-ops start');
  expect(startHint('/srv/restored', packageTree)).toBe('DATA_DIR=/srv/restored auction-ops start');
});
