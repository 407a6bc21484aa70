// Storage throughput: uploads and downloads through /storage/v1 (real HTTP on loopback, fsync'd spool, metadata
// transaction under RLS) for 100 KB and 5 MB images, against writing (write + fsync) and reading the same bytes
// on the same disk directly, in the same run. Run: node --import tsx scripts/bench-storage.ts
// Uses DATABASE_URL when set, else an embedded Postgres in a temporary DATA_DIR; STORAGE_BACKEND=s3 and the
// S3_* variables bench an S3-compatible service instead of the filesystem.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { mkdir, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchResumable } from './bench-storage-resumable.js';
import { startBenchServer } from './support/bench-server.js';
import { main as transformBench } from './bench-storage-transform.js';

const KB = 1024;
const MB = 1024 * KB;
const CASES = [
  { label: '100 KB', size: 100 * KB, count: 60 },
  { label: '5 MB', size: 5 * MB, count: 12 },
];

function accessToken(secret: string, sub: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 3600 };
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

function jpeg(size: number): Buffer {
  const bytes = randomBytes(size);
  bytes.set([0xff, 0xd8, 0xff, 0xe0]);
  return bytes;
}

async function timed(run: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

const rate = (bytes: number, seconds: number) => (bytes / MB / seconds).toFixed(1).padStart(8);

export async function main(): Promise<void> {
  // The environment passes through: STORAGE_BACKEND=s3 and the S3_* settings measure the S3 backend.
  const bench = await startBenchServer('storage', {
    // Room for the 50 MB resumable case (bench-storage-resumable.ts); the smaller cases stay under any limit.
    STORAGE_FILE_SIZE_LIMIT: String(60 * MB),
    ...(process.env as Record<string, string>),
    WORKERS_ENABLED: 'false',
  });
  const { server, dir: dataDir } = bench;
  try {
    const userId = randomUUID();
    await server.ctx.ownerSql`insert into auth.users (id, email) values (${userId}, ${`${userId}@bench.test`})`;
    const headers = {
      apikey: server.ctx.anonKey,
      Authorization: `Bearer ${accessToken(server.ctx.jwtSecret, userId)}`,
    };
    const direct = join(dataDir, 'direct');
    await mkdir(direct);

    console.log(`storage benchmark (${server.ctx.config.STORAGE_BACKEND} backend), MB/s`);
    console.log('size      upload  download  disk write+fsync  disk read  upload/disk write  download/disk read');
    for (const { label, size, count } of CASES) {
      const body = jpeg(size);
      const names = Array.from({ length: count }, (_, i) => `${userId}/${Date.now()}_${i}.jpg`);
      const total = size * count;
      const upload = await timed(async () => {
        for (const name of names) {
          const res = await fetch(`${server.url}/storage/v1/object/lot-images/${name}`, {
            method: 'POST',
            headers: { ...headers, 'Content-Type': 'image/jpeg' },
            body,
          });
          if (res.status !== 200) throw new Error(`upload failed: ${res.status} ${await res.text()}`);
        }
      });
      const download = await timed(async () => {
        for (const name of names) {
          const res = await fetch(`${server.url}/storage/v1/object/public/lot-images/${name}`);
          const got = Buffer.from(await res.arrayBuffer());
          if (got.length !== size) throw new Error(`download returned ${got.length} bytes`);
        }
      });
      const files = names.map((_, i) => join(direct, `${label.replace(' ', '')}-${i}`));
      const write = await timed(async () => {
        for (const file of files) {
          const handle = await open(file, 'w');
          await handle.write(body);
          await handle.sync();
          await handle.close();
        }
      });
      const read = await timed(async () => {
        for (const file of files) await readFile(file);
      });
      const ratio = (a: number, b: number) => `${((b / a) * 100).toFixed(0)}%`;
      console.log(
        `${label.padEnd(8)}${rate(total, upload)}  ${rate(total, download)}  ` +
          `${rate(total, write).padStart(16)}  ${rate(total, read).padStart(9)}` +
          `  ${ratio(upload, write).padStart(17)}  ${ratio(download, read).padStart(18)}`,
      );
    }
    await benchResumable(server, userId, headers.Authorization.slice('Bearer '.length));
  } finally {
    await bench.stop();
  }
  await transformBench();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
