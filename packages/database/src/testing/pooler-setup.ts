// Vitest global setup of the pooler runs: a PostgreSQL 15 primary (Debian's postgresql-15) with PgBouncer in
// transaction mode in front of it. Test files get their databases on the primary as usual; servers started by
// the test harness send their request pool through PgBouncer (see `pgPoolerUrl`).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureRoles } from '../roles.js';
import {
  installedPgBouncer,
  installedPostgres,
  type PgBouncer,
  type PgCluster,
  startPgBouncer,
  startPgCluster,
} from './pg-cluster.js';

let cluster: PgCluster | undefined;
let bouncer: PgBouncer | undefined;
let dir: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  const binDir = installedPostgres();
  if (!binDir || !installedPgBouncer())
    throw new Error('postgresql-15 and pgbouncer are not installed: run scripts/test-pg-cluster.sh');
  cluster = await startPgCluster({ binDir, replicas: 0 });
  const password = await ensureRoles(cluster.primary.url, randomBytes(18).toString('base64url'));
  bouncer = await startPgBouncer({ targetPort: cluster.primary.port, users: { authenticator: password } });
  dir = mkdtempSync(join(tmpdir(), 'auction-ops-pooler-'));
  const file = join(dir, 'cluster.json');
  writeFileSync(file, JSON.stringify({ adminUrl: cluster.primary.url, authenticatorPassword: password }));
  project.provide('pgClusterFile', file);
  project.provide('pgPoolerUrl', bouncer.url(''));
}

export async function teardown(): Promise<void> {
  await bouncer?.stop();
  await cluster?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
