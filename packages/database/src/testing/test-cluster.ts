// The run's PostgreSQL as test files see it: global-setup.ts (or pooler-setup.ts) names a file that describes the
// cluster once it accepts connections; testCluster() waits for that file, so a file that needs no database does
// not wait for one, and one that does waits only as long as the cluster still takes to start.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { expect, inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The file describing the run's cluster (see testCluster()); absent until the cluster accepts connections. */
    pgClusterFile: string;
    /** A pooler in transaction mode in front of the cluster (pooler runs only), ending in `/`. */
    pgPoolerUrl?: string;
  }
}

export interface TestCluster {
  /** Superuser URL of the cluster's `postgres` database. */
  adminUrl: string;
  /** The password of the authenticator role (the servers' request pool logs in as it). */
  authenticatorPassword: string;
}

/** How long a test waits for the cluster to start: initdb and start-up on a loaded 2-core machine, with room. */
const START_DEADLINE_MS = 120_000;

let known: Promise<TestCluster> | undefined;
/** Files of this worker that asked for the cluster (a worker that does not isolate files runs several). */
const recorded = new Set<string>();

/** The run's cluster, once it accepts connections; throws the error that kept it from starting. */
export function testCluster(): Promise<TestCluster> {
  const file = inject('pgClusterFile');
  // The files that use the cluster, for the run's list of them (global-setup.ts; CI's second run uses it).
  const testPath = expect.getState().testPath;
  if (testPath && !recorded.has(testPath)) {
    recorded.add(testPath);
    appendFileSync(`${file}.users`, `${testPath}\n`);
  }
  known ??= (async () => {
    const deadline = Date.now() + START_DEADLINE_MS;
    while (!existsSync(file)) {
      if (Date.now() > deadline)
        throw new Error(`the test cluster did not start within ${START_DEADLINE_MS / 1000} s (no ${file})`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const described = JSON.parse(readFileSync(file, 'utf8')) as TestCluster | { error: string };
    if ('error' in described) throw new Error(`the test cluster did not start:\n${described.error}`);
    return described;
  })();
  return known;
}
