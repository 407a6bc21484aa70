// Shared arrangements for the storage tests: a real server on a fresh database with either backend,
// users with signed access tokens, and image bytes of a given type and size.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { TestDatabase } from '@auction-ops/database/testing';
import { readdir } from 'node:fs/promises';
import { request } from 'node:http';
import { createFsBackend } from '@auction-ops/storage';
import { createS3Backend } from '@auction-ops/storage/s3';
import { startFakeS3, type FakeS3 } from '@auction-ops/storage/testing';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import type { RunningServer } from '../src/index.js';
import { NoWebSocket, s3Environment, startTestServer } from './support/test-server.js';

export const JWT_SECRET = 'storage-test-secret-'.padEnd(48, 'x');

export interface StorageHarness {
  server: RunningServer;
  db: TestDatabase;
  dataDir: string;
  s3?: FakeS3;
  /** A user in auth.users with an access token. */
  createUser(): Promise<TestUser>;
  /** supabase-js against this server: see storageClient. */
  client(token?: string | 'service'): SupabaseClient;
  /** The invariant the storage design keeps: see storageConsistency. */
  consistency(): ReturnType<typeof storageConsistency>;
  close(): Promise<void>;
}

/**
 * The invariant of the storage design: the keys in the backend are exactly the versions the rows point at
 * (no row without bytes, no orphaned bytes), and no spool file is left behind.
 */
export async function storageConsistency(
  h: Pick<StorageHarness, 'db' | 'dataDir' | 's3'>,
): Promise<{ rows: string[]; stored: string[]; spool: string[] }> {
  const root = join(h.dataDir, 'storage');
  const backend = h.s3
    ? createS3Backend({
        bucket: h.s3.bucket,
        region: 'us-east-1',
        endpoint: h.s3.endpoint,
        forcePathStyle: true,
        accessKeyId: h.s3.accessKeyId,
        secretAccessKey: h.s3.secretAccessKey,
      })
    : createFsBackend(root);
  try {
    const rows = await h.db.sql<{ key: string }[]>`select bucket_id || '/' || version as key from storage.objects`;
    return {
      rows: rows.map((r) => r.key).sort(),
      stored: (await backend.keys()).sort(),
      spool: await readdir(join(root, 'tmp')).catch(() => []),
    };
  } finally {
    await backend.close();
  }
}

export async function startStorageServer(
  backend: 'fs' | 's3',
  env: Record<string, string> = {},
  beforeStart?: (dataDir: string) => Promise<void>,
): Promise<StorageHarness> {
  const s3 = backend === 's3' ? await startFakeS3() : undefined;
  const s3Env: Record<string, string> = s3 ? s3Environment(s3) : {};
  const t = await startTestServer(
    { JWT_SECRET, WORKERS_ENABLED: 'false', ...s3Env, ...env },
    { beforeStart: async ({ dataDir }) => beforeStart?.(dataDir) },
  ).catch(async (error) => {
    await s3?.close();
    throw error;
  });
  const { server, db, dataDir } = t;
  const harness: StorageHarness = {
    server,
    db,
    dataDir,
    s3,
    createUser: () => createUser(db),
    client: (token) => storageClient(harness, token),
    consistency: () => storageConsistency(harness),
    async close() {
      await t.stop();
      await s3?.close();
    },
  };
  return harness;
}

function hs256(claims: Record<string, unknown>, secret = JWT_SECRET): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

/** An access token as the auth family will issue it (until then, signed here). */
export function accessToken(sub: string, options: { expiresIn?: number; role?: string } = {}): string {
  const now = Math.floor(Date.now() / 1000);
  return hs256({
    sub,
    role: options.role ?? 'authenticated',
    aud: 'authenticated',
    iat: now,
    exp: now + (options.expiresIn ?? 3600),
  });
}

export interface TestUser {
  id: string;
  token: string;
}

export async function createUser(db: TestDatabase): Promise<TestUser> {
  const id = randomUUID();
  await db.sql`insert into auth.users (id, email) values (${id}, ${`${id}@example.test`})`;
  return { id, token: accessToken(id) };
}

const SIGNATURES: Record<string, Buffer> = {
  'image/png': Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
  'image/jpeg': Buffer.from('ffd8ffe000104a464946000101', 'hex'),
  'image/gif': Buffer.from('GIF89a', 'latin1'),
  'image/webp': Buffer.concat([Buffer.from('RIFF'), Buffer.from([0, 0, 0, 0]), Buffer.from('WEBPVP8 ')]),
  'image/heic': Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic\0\0\0\0mif1heic')]),
};

/** Bytes that start like a real file of `type` (the server recognises types by their leading bytes). */
export function imageBytes(type: keyof typeof SIGNATURES | string, size = 2048): Buffer {
  const signature = SIGNATURES[type];
  if (!signature) throw new Error(`no signature for ${type}`);
  return Buffer.concat([signature, randomBytes(Math.max(0, size - signature.length))]);
}

/** The path shape the mobile app uploads to: <user_id>/<epoch_seconds>_<random>.<extension>. */
export function appUploadPath(userId: string, extension = 'png'): string {
  return `${userId}/${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}.${extension}`;
}

/**
 * Starts an upload that announces `total` bytes, sends `sent` of them, then drops the connection — a client
 * that loses its network mid-upload. Resolves once the socket is closed.
 */
export function cutOffUpload(
  target: string,
  headers: Record<string, string>,
  total: number,
  sent: Buffer,
): Promise<void> {
  const { hostname, port, pathname } = new URL(target);
  return new Promise((resolve) => {
    const req = request({
      hostname,
      port,
      path: pathname,
      method: 'POST',
      headers: { ...headers, 'Content-Length': String(total) },
    });
    req.on('error', () => resolve());
    req.on('close', () => resolve());
    req.write(sent, () => setTimeout(() => req.destroy(), 150));
  });
}

/** Polls until `check` passes or two seconds have gone (server-side cleanup runs after the socket closes). */
export async function eventually(check: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + 2000;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** supabase-js against the harness: with a user's token, the service role key (`'service'`), or anonymous. */
export function storageClient(h: StorageHarness, token?: string | 'service'): SupabaseClient {
  const key = token === 'service' ? h.server.ctx.serviceRoleKey : h.server.ctx.anonKey;
  return createClient(h.server.url, key, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: NoWebSocket as never },
    global: token && token !== 'service' ? { headers: { Authorization: `Bearer ${token}` } } : {},
  });
}

/** The HTTP status of a storage-js error (null when the call succeeded). */
export const statusOf = (error: unknown): number | null => (error as { status?: number } | null)?.status ?? null;
