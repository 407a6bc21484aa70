// Vitest global setup: one Postgres cluster per test run (embedded, or TEST_DATABASE_URL for another version).
// Test files get their own databases cloned from migrated templates (see test-database.ts). The embedded cluster
// starts in a process of its own (cluster-process.ts) while the run goes on: test files wait for it in
// testCluster() (test-cluster.ts), and files that need no database do not wait at all.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { ensureRoles } from '../roles.js';

let dir: string | undefined;
let child: ChildProcess | undefined;
let exited: Promise<unknown> | undefined;

export async function setup(project: TestProject): Promise<void> {
  dir = mkdtempSync(join(tmpdir(), 'auction-ops-test-'));
  // Passable (not readable) by others: the run's shared directories (run-shared-directory.ts) hold embedded
  // clusters, which run as PostgreSQL's own user when the tests run as root.
  chmodSync(dir, 0o711);
  const file = join(dir, 'cluster.json');
  project.provide('pgClusterFile', file);
  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    const authenticatorPassword = await ensureRoles(external, randomBytes(18).toString('base64url'));
    writeFileSync(file, JSON.stringify({ adminUrl: external, authenticatorPassword }));
    return;
  }
  const script = fileURLToPath(new URL('./cluster-process.ts', import.meta.url));
  // stdin stays open for the run: the cluster stops when it closes (teardown, or this process gone).
  child = spawn(process.execPath, ['--import', 'tsx', script, file, dir], { stdio: ['pipe', 'inherit', 'inherit'] });
  exited = new Promise((resolve) => child!.once('exit', resolve));
  void exited.then((code) => {
    // A cluster process that died before describing the cluster: say so to the waiting files at once.
    try {
      writeFileSync(file, JSON.stringify({ error: `the cluster process exited (${code})` }), { flag: 'wx' });
    } catch {
      /* it described the cluster (or its error) first */
    }
  });
}

/**
 * The run's list of the test files that used its database (testCluster()), one path a line relative to the
 * repository, in .tmp/database-test-files.txt: CI runs these again on the other Node and PostgreSQL (.ci/run).
 */
function listDatabaseFiles(): void {
  if (!dir) return;
  try {
    const root = fileURLToPath(new URL('../../../../', import.meta.url));
    const users = readFileSync(join(dir, 'cluster.json.users'), 'utf8').split('\n').filter(Boolean);
    const files = [...new Set(users.map((file) => relative(root, file)))].sort();
    mkdirSync(join(root, '.tmp'), { recursive: true });
    writeFileSync(join(root, '.tmp', 'database-test-files.txt'), `${files.join('\n')}\n`);
  } catch {
    /* no file used the database in this run */
  }
}

export async function teardown(): Promise<void> {
  listDatabaseFiles();
  if (!child) {
    if (dir) rmSync(dir, { recursive: true, force: true });
    return;
  }
  // The cluster process stops the cluster and removes `dir` once its input closes. A cluster still starting
  // (a run of files that needed none) is left to finish and stop on its own: the run does not wait for it.
  child.stdin?.end();
  if (!existsSync(join(dir!, 'cluster.json'))) {
    child.stdin?.destroy();
    child.unref();
    return;
  }
  const timer = setTimeout(() => child?.kill('SIGKILL'), 90_000);
  await exited;
  clearTimeout(timer);
}
