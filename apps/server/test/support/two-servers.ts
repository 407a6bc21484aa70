// Two servers on one database, deployed as docs/scaling.md describes several instances: one DATABASE_URL (the test
// harness's database), one JWT_SECRET, S3 storage (a fake S3 on loopback), the Postgres rate-limit stores, and every
// background worker running in both. Tests of cross-instance behaviour start here and address the servers as `a`
// and `b`; `env` adds settings to both, `each` settings to one of them (instances configured differently).
import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { type FakeS3, startFakeS3 } from '@auction-ops/storage/testing';
import { type FakeExpo, startFakeExpo } from '../../../../packages/functions/src/push/testing/fake-expo-server.js';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
import { s3Environment, startTestServer, type TestServer } from './test-server.js';

export interface TwoServers {
  a: TestServer;
  b: TestServer;
  db: TestDatabase;
  jwtSecret: string;
  s3: FakeS3;
  /** The fake Expo push service both servers send to (the overdue-submission reminders). */
  expo: FakeExpo;
  stop(): Promise<void>;
}

export async function startTwoServers(
  env: Record<string, string> = {},
  each: { a?: Record<string, string>; b?: Record<string, string> } = {},
): Promise<TwoServers> {
  const jwtSecret = randomBytes(32).toString('base64url');
  const db = await createTestDatabase(migrationSets);
  const [s3, expo] = await Promise.all([startFakeS3(), startFakeExpo()]);
  const servers: TestServer[] = [];
  const stop = async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await Promise.all([db.drop(), s3.close(), expo.close()]);
  };
  const shared = {
    JWT_SECRET: jwtSecret,
    ...s3Environment(s3),
    RATE_LIMITS_ENABLED: 'true',
    RATE_LIMITS_STORE: 'postgres',
    AUTH_RATE_LIMIT_STORE: 'postgres',
    // A load balancer on loopback: tests speak for a client address of their own through X-Forwarded-For.
    TRUSTED_PROXY_CIDRS: '127.0.0.1/32',
    ALLOW_INSECURE_HTTP: 'true',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
    WEBHOOK_JITTER: '0',
    WEBHOOK_POLL_INTERVAL_MS: '200',
    EXPO_PUSH_URL: expo.url,
    PENDING_CHECK_INTERVAL_MINUTES: '0.05',
    ...env,
  };
  try {
    for (const own of [each.a, each.b]) servers.push(await startTestServer({ ...shared, ...own }, { db }));
  } catch (error) {
    await stop();
    throw error;
  }
  const [a, b] = servers;
  return { a, b, db, jwtSecret, s3, expo, stop };
}
