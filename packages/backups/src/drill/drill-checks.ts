// What a drill checks on the restored copy, each check throwing a DrillCheckError that says what differs: the
// migration ledger equals the source's, every table's row count is the source's as of the instant (within a small
// tolerance), a sample of objects has the source's bytes (SHA-256), and the probe account signs in.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type postgres from 'postgres';
import {
  createAuthService,
  createTokenSigner,
  createTokenVerifier,
  loadSecrets,
  outboxMailer,
} from '@auction-ops/auth-core';
import { qualified } from '@auction-ops/database';
import type { BackupTarget } from '../backup-target.js';
import type { Probe, SourceState } from './drill-source.js';

class DrillCheckError extends Error {
  override name = 'DrillCheckError';
}

/**
 * Commits in the instant's own millisecond may fall on either side of the cut in the count snapshot and the replay:
 * a table may differ by that much, never more than 10 rows or 0.1 % of it, whichever is larger.
 */
function rowTolerance(sourceRows: number): number {
  return Math.max(10, Math.ceil(sourceRows * 0.001));
}

export async function checkLedger(restored: postgres.Sql, source: SourceState): Promise<number> {
  const exists = (await restored`select to_regclass('auction_ops.migrations') is not null as yes`)[0].yes;
  const ledger = exists
    ? (await restored`select package, name, checksum from auction_ops.migrations order by 1, 2`).map(
        (m) => `${m.package}/${m.name} ${m.checksum}`,
      )
    : [];
  const missing = source.ledger.filter((m) => !ledger.includes(m));
  const extra = ledger.filter((m) => !source.ledger.includes(m));
  if (missing.length || extra.length)
    throw new DrillCheckError(
      `the migration ledger differs from the source's: ${[
        ...missing.slice(0, 3).map((m) => `missing ${m}`),
        ...extra.slice(0, 3).map((m) => `unexpected ${m}`),
      ].join(', ')}`,
    );
  return ledger.length;
}

export async function checkRowCounts(restored: postgres.Sql, source: SourceState): Promise<number> {
  const differences: string[] = [];
  let rows = 0;
  for (const { schema, name, rows: expected } of source.counts) {
    const table = qualified(schema, name);
    const [found] = await restored`select to_regclass(${table}) is not null as yes`;
    if (!found.yes) {
      differences.push(`${table} is missing`);
      continue;
    }
    const [{ n }] = await restored.unsafe(`select count(*)::bigint as n from ${table}`);
    rows += Number(n);
    if (Math.abs(Number(n) - expected) > rowTolerance(expected))
      differences.push(`${table} has ${n} rows, the source ${expected}`);
  }
  if (differences.length)
    throw new DrillCheckError(
      `row counts differ from the source's as of ${source.at.toISOString()}: ${differences.slice(0, 5).join('; ')}` +
        (differences.length > 5 ? ` and ${differences.length - 5} more tables` : ''),
    );
  return rows;
}

const digest = (stream: Readable) =>
  new Promise<string>((resolve, reject) => {
    const hash = createHash('sha256');
    stream.on('data', (chunk) => hash.update(chunk));
    stream.on('error', reject);
    stream.on('end', () => resolve(hash.digest('hex')));
  });

/** Objects compared per drill: enough to catch an archive that lost objects, cheap beside the restore itself. */
const OBJECT_SAMPLE = 20;

/**
 * A random sample of the restored objects: the bytes restored under each row's version hash to what the source
 * serves for it (versions are never rewritten), or, for a version the source has since removed, to the digest the
 * archive recorded when it was written.
 */
export async function checkObjects(
  restored: postgres.Sql,
  dataDir: string,
  target: BackupTarget,
  sourceObject?: (key: string) => Promise<Readable>,
): Promise<number> {
  const exists = (await restored`select to_regclass('storage.objects') is not null as yes`)[0].yes;
  if (!exists) return 0;
  const sample = await restored`
    select bucket_id, version from storage.objects order by random() limit ${OBJECT_SAMPLE}`;
  for (const { bucket_id: bucket, version } of sample) {
    const key = `${bucket}/${version}`;
    const file = join(dataDir, 'storage', 'objects', bucket, version.slice(0, 2), version);
    const restoredDigest = await digest(createReadStream(file)).catch(() => undefined);
    if (!restoredDigest) throw new DrillCheckError(`object ${key} is named by the restored database but not restored`);
    const expected =
      (sourceObject && (await sourceObject(key).then(digest, () => undefined))) ??
      (await target.store.getText(`objects/${key}.sha256`))?.trim();
    if (!expected) throw new DrillCheckError(`object ${key} is in neither the source nor the archive to compare with`);
    if (expected !== restoredDigest)
      throw new DrillCheckError(`object ${key} was restored with other bytes than the source's (SHA-256 differs)`);
  }
  return sample.length;
}

/**
 * The real password sign-in (auth-core's, as POST /auth/v1/token does it) against the restored database, with the
 * JWT secret restored with it: the password hash verifies, a session is written (the copy accepts writes), and the
 * access token it signs is accepted by the source's secret, so existing keys and tokens stay valid after a restore.
 */
export async function checkSignIn(
  restored: postgres.Sql,
  dataDir: string,
  probe: Probe | undefined,
  sourceJwtSecret: string | undefined,
  jwtSecretFromEnv: string | undefined,
): Promise<string> {
  if (!probe) return 'skipped: no auth schema';
  const { jwtSecret } = loadSecrets(dataDir, jwtSecretFromEnv, { create: false });
  const signer = await createTokenSigner({ secret: jwtSecret });
  const auth = createAuthService(restored, signer, outboxMailer(restored, 'restore-drill@auction-ops.invalid'), {
    publicUrl: 'http://127.0.0.1',
    appUrl: 'http://127.0.0.1',
    redirectAllowList: [],
    autoconfirm: false,
    disableSignup: true,
    anonymousSignIns: false,
    accessTokenSeconds: 60,
    oneTimeTokenSeconds: 60,
    refreshReuseSeconds: 10,
    passwordPolicy: { minLength: 6, maxLength: 72, requiredClasses: [] },
    tokenKey: jwtSecret,
  });
  let session: Awaited<ReturnType<typeof auth.signInWithPassword>>;
  try {
    session = await auth.signInWithPassword({ email: probe.email, password: probe.password }, {});
  } catch (error) {
    throw new DrillCheckError(`the probe account could not sign in on the restored copy: ${(error as Error).message}`);
  } finally {
    await auth.drain?.();
  }
  const claims = await createTokenVerifier(sourceJwtSecret ?? jwtSecret)
    .verify(session.access_token)
    .catch((error: Error) => {
      throw new DrillCheckError(`the restored copy signs tokens the source does not accept: ${error.message}`);
    });
  if (claims.sub !== probe.id) throw new DrillCheckError('the restored sign-in issued a token for another user');
  return 'password sign-in of a probe account, token accepted by the source';
}
