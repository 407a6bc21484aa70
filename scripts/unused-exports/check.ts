// `pnpm lint` runs this: fails when a source file exports a name no other file imports (dead code, or a name that
// should not be exported). Public API that only the world outside the workspace uses is listed below.
// Usage: node --import tsx scripts/unused-exports/check.ts [root]
import { fileURLToPath } from 'node:url';
import { findUnusedExports } from './find-unused-exports.js';

/**
 * Files whose every export is used from outside, besides the package.json `exports` of each package (found on their
 * own). rest-engine is published to npm: its users import its index and run its CLI. Vitest's global setups are
 * loaded by path (vitest.config.ts, vitest.pg-cluster.config.ts) and called by their export names.
 */
const PUBLIC_ENTRY_POINTS = [
  'packages/rest-engine/src/index.ts',
  'packages/rest-engine/src/cli/main.ts',
  'packages/database/src/testing/global-setup.ts',
  'packages/database/src/testing/pooler-setup.ts',
];

/** Single exports kept though nothing in the workspace imports them (`file#name`), each with its reason. */
const ALLOWED: string[] = [];

const root = process.argv[2] ?? fileURLToPath(new URL('../..', import.meta.url));
const unused = findUnusedExports(root, { publicEntryPoints: PUBLIC_ENTRY_POINTS, allowed: ALLOWED });
for (const u of unused) {
  console.error(
    `${u.file}: ${u.name} is exported but not imported elsewhere (${u.usedInFile ? 'un-export it' : 'unused: delete it'})`,
  );
}
if (unused.length > 0) {
  console.error(`${unused.length} unused export(s)`);
  process.exit(1);
}
console.log('no unused exports');
