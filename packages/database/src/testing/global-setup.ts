// Vitest global setup: one Postgres cluster per test run (embedded, or TEST_DATABASE_URL for another version).
// Test files get their own databases cloned from migrated templates (see test-database.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedCluster } from '../embedded-postgres.js';
import { ensureRoles } from '../roles.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgAuthenticatorPassword: string;
    /** A pooler in transaction mode in front of pgAdminUrl's server (pooler runs only), ending in `/`. */
    pgPoolerUrl?: string;
  }
}

let cluster: EmbeddedCluster | undefined;
let dir: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    dir = mkdtempSync(join(tmpdir(), 'auction-ops-test-'));
    cluster = await startEmbeddedPostgres({
      dir: join(dir, 'pg'),
      // Test data is disposable: trade durability for speed.
      settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: 300 },
    });
    adminUrl = cluster.url;
  }
  const password = await ensureRoles(adminUrl, randomBytes(18).toString('base64url'));
  project.provide('pgAdminUrl', adminUrl);
  project.provide('pgAuthenticatorPassword', password);
}

export async function teardown(): Promise<void> {
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
