// The files the sources find through `import.meta.url`, copied into the package's mirrored tree (tree/ keeps the
// checkout's paths, so `new URL('../migrations', import.meta.url)` finds the same files from the bundle), plus the
// files a checkout builds at run time and the package ships built (the console's client, the CSV parse worker).
import { cpSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildClientFiles } from '../../packages/console/src/client-bundle.js';
import { bundleParseWorker } from '../../packages/functions/src/reporting/import/parse-worker.js';

export const MIRROR = 'tree';
const ROOT = join(import.meta.dirname, '../..');

/**
 * Every workspace source that reads `import.meta.url`, with the files or directories (repository paths) it reads
 * beside itself. A source missing here stops the pack: what it reads would be missing from the package.
 */
const FILES_BESIDE: Record<string, readonly string[]> = {
  'packages/auth-core/src/migrations.ts': ['packages/auth-core/migrations'],
  'packages/storage/src/migrations.ts': ['packages/storage/migrations'],
  'packages/domain/src/migrations.ts': [
    'packages/domain/migrations',
    'packages/domain/migrations-storage',
    'packages/domain/migrations-realtime',
  ],
  'packages/realtime/src/migrations.ts': ['packages/realtime/migrations'],
  'packages/webhooks/src/migrations.ts': ['packages/webhooks/migrations'],
  'packages/auction-data/src/migrations.ts': ['packages/auction-data/migrations'],
  'packages/functions/src/notify/notification-migrations.ts': ['packages/functions/migrations/notifications'],
  'packages/functions/src/reporting/reporting-migrations.ts': ['packages/functions/migrations/reporting'],
  'packages/functions/src/templates/template-renderer.ts': ['packages/functions/src/templates'],
  'packages/domain/src/seed/demo-data.ts': ['packages/domain/src/seed/rock-reports.json'],
  // archive_command and restore_command: PostgreSQL runs this file with node.
  'packages/backups/src/wal-segments.ts': ['packages/backups/src/wal-command.mjs'],
  // Written by writeBuiltFiles: the console's client and the parse worker, built; the version's package.json.
  'packages/console/src/client-bundle.ts': [],
  'packages/functions/src/reporting/import/parse-worker.ts': [],
  'apps/server/src/version.ts': [],
  // createRequire(import.meta.url): Node resolves from the mirrored path up to the package's node_modules.
  'packages/auth-core/src/xml-libraries.ts': [],
  'packages/database/src/embedded-postgres.ts': [],
  // The checkout's root, for DATA_DIR's default: the package's command sets DATA_DIR (./.data) before it is read.
  'packages/server-config/src/core.ts': [],
  // Whether it runs in a checkout (a pnpm-workspace.yaml at the root), for hints: the package's tree holds none.
  'apps/cli/src/invocation.ts': [],
};

/** Stops the pack when a source reads files beside itself that nobody listed. */
export function checkFilesBeside(source: string): void {
  if (!(source in FILES_BESIDE))
    throw new Error(`${source} uses import.meta.url: list the files it reads in scripts/server-package/assets.ts`);
}

/** Only data beside a source: its own TypeScript and its tests stay out. */
const isData = (path: string) => !/\.(ts|tsx)$/.test(path);

/** Copies every listed file into `<packageDir>/tree`, and returns how many files were copied. */
export function copyFilesBeside(packageDir: string): number {
  let count = 0;
  for (const path of Object.values(FILES_BESIDE).flat()) {
    cpSync(join(ROOT, path), join(packageDir, MIRROR, path), {
      recursive: true,
      filter: (from) => statSync(from).isDirectory() || (isData(from) && ++count > 0),
    });
  }
  return count;
}

/** The files a checkout makes at run time, made now into the mirrored tree. */
export async function writeBuiltFiles(packageDir: string, version: string): Promise<void> {
  const write = (path: string, contents: string | Uint8Array) => {
    const file = join(packageDir, MIRROR, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, contents);
  };
  const client = await buildClientFiles();
  write('packages/console/src/client-prebuilt/console.js', client.script);
  write('packages/console/src/client-prebuilt/console.css', client.style);
  write('packages/functions/src/reporting/import/csv-worker.prebuilt.cjs', await bundleParseWorker());
  // version.ts reads `../package.json`: the release alone, not the workspace's manifest.
  write('apps/server/package.json', `${JSON.stringify({ name: '@auction-ops/server', private: true, version })}\n`);
}

/** Every file under `dir`, relative to it (for the pack's summary and the checks). */
export function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(dir, join(prefix, e.name)) : [join(prefix, e.name)],
  );
}
