// `pnpm bench storage`: the storage targets, each printed with its measured figure, its baseline measured in the
// same run and the load average (issues 22 and 26):
//   - a 5 MB upload through /storage/v1 (real HTTP on loopback, checked, fsynced, its row written under RLS)
//     at >= 0.7 of writing and fsyncing the same bytes, both from another process;
//   - a 5 MB public download at >= 0.85 of a minimal static-file server (http.createServer, fs.createReadStream and
//     pipeline, in its own process) serving the very file the object's bytes are stored in, both fetched by curl
//     (one curl per round and side, its transfers on one kept-alive connection, timed by curl's own time_total);
//   - a 50 MB resumable upload at >= 0.8 of a plain upload (bench-storage-resumable.ts);
//   - image transformations at >= 0.8 of sharp called directly, uncached (bench-storage-transform.ts).
// 100 KB objects are measured the same way, for information. Rounds alternate the two sides so a change in the
// machine's load falls on both; each side's best round counts, and the downloads' ratio of every round is printed
// too (their range shows the machine's noise).
// Run: node --import tsx scripts/bench-storage.ts. Uses DATABASE_URL when set, else an embedded Postgres in a
// temporary DATA_DIR; STORAGE_BACKEND=s3 and the S3_* variables bench an S3-compatible service instead.
import { execFile, spawn } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { benchResumable } from './bench-storage-resumable.js';
import { main as transformBench } from './bench-storage-transform.js';
import { startBenchServer } from './support/bench-server.js';
import { loadAverage } from './support/load-average.js';
import { sized } from './support/bench-smoke.js';

const KB = 1024;
const MB = 1024 * KB;
// One round of a few objects in the smoke run (`pnpm bench:smoke`).
const ROUNDS = sized(3, 1);
const DOWNLOAD_ROUNDS = sized(7, 1);
// Each round GETs every object this many times: a 5 MB GET on loopback takes milliseconds.
const DOWNLOAD_REPEAT = sized(3, 1);
const CASES = [
  { label: '5 MB', size: 5 * MB, count: sized(8, 2), uploadTarget: 0.7, downloadTarget: 0.85 },
  { label: '100 KB', size: 100 * KB, count: sized(40, 5) },
];
const CLIENT = fileURLToPath(new URL('./support/upload-load-client.ts', import.meta.url));
const run = promisify(execFile);

function accessToken(secret: string, sub: string): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 3600 };
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

/** Runs the load client (support/upload-load-client.ts) in its own process; answers the seconds it took. */
async function client(...args: string[]): Promise<number> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', CLIENT, ...args], { maxBuffer: MB });
  return (JSON.parse(stdout.trim()) as { seconds: number }).seconds;
}

// The download baseline: a minimal static-file server, node:http streaming files from a directory with pipeline,
// in its own process.
const STATIC_SERVER = `
const http = require('node:http'), fs = require('node:fs'), path = require('node:path');
const { pipeline } = require('node:stream');
const root = process.argv[1];
const server = http.createServer((req, res) => {
  const file = path.join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname));
  fs.stat(file, (error, info) => {
    if (error || !file.startsWith(root)) { res.writeHead(404); return res.end(); }
    res.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': info.size });
    pipeline(fs.createReadStream(file), res, () => {});
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

/**
 * GETs every URL with one curl (one kept-alive connection), each answer checked for status 200 and `size` bytes;
 * answers the seconds the transfers took by curl's own clock (time_total; curl's start-up is not counted), and
 * each transfer's time to its first byte (time_starttransfer: the request's handling before the bytes flow).
 */
async function curlGet(urls: string[], size: number, firstBytes: number[] = []): Promise<number> {
  const args = ['-s', '-w', '%{http_code} %{size_download} %{time_total} %{time_starttransfer}\\n'];
  for (const url of urls) args.push('-o', '/dev/null', url);
  const { stdout } = await run('curl', args, { maxBuffer: MB });
  let seconds = 0;
  for (const line of stdout.trim().split('\n')) {
    const [status, bytes, time, first] = line.split(' ');
    if (status !== '200' || Number(bytes) !== size) throw new Error(`curl: ${line}`);
    seconds += Number(time);
    firstBytes.push(Number(first) * 1000);
  }
  return seconds;
}

async function startStaticServer(root: string): Promise<{ url: string; cpuMs(): number; stop(): void }> {
  const child = spawn(process.execPath, ['-e', STATIC_SERVER, root], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (data: Buffer) => resolve(data.toString().trim()));
    child.once('exit', (code) => reject(new Error(`static file server exited ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    // utime + stime from /proc, in ms (clock ticks of 10 ms).
    cpuMs: () => {
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    },
    stop: () => child.kill(),
  };
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

const mbps = (bytes: number, seconds: number) => (bytes / MB / seconds).toFixed(1);
const best = (list: number[]) => Math.min(...list);

function verdict(ratio: number, target: number | undefined): string {
  if (target === undefined) return `ratio ${ratio.toFixed(2)}`;
  return `ratio ${ratio.toFixed(2)} (target >= ${target.toFixed(2)}: ${ratio >= target ? 'met' : 'NOT met'})`;
}

export async function main(): Promise<void> {
  // The environment passes through: STORAGE_BACKEND=s3 and the S3_* settings measure the S3 backend,
  // STORAGE_FILE_ETAG_ALGORITHM=mtime uploads without hashing.
  const bench = await startBenchServer('storage', {
    // Room for the 50 MB resumable case (bench-storage-resumable.ts); the smaller cases stay under any limit.
    STORAGE_FILE_SIZE_LIMIT: String(60 * MB),
    ...(process.env as Record<string, string>),
    WORKERS_ENABLED: 'false',
    RATE_LIMITS_ENABLED: 'false',
  });
  const { server, dir: dataDir } = bench;
  const direct = join(dataDir, 'direct');
  await mkdir(direct);
  // The static server serves the stored objects' own files (the filesystem backend's layout); with S3, the
  // baseline's files of the same size.
  const fsBackend = server.ctx.config.STORAGE_BACKEND === 'fs';
  const files = await startStaticServer(fsBackend ? join(dataDir, 'storage', 'objects') : direct);
  try {
    const userId = randomUUID();
    await server.ctx.ownerSql`insert into auth.users (id, email) values (${userId}, ${`${userId}@bench.test`})`;
    const token = accessToken(server.ctx.jwtSecret, userId);
    console.log(
      `storage benchmark (${server.ctx.config.STORAGE_BACKEND} backend, ` +
        `${server.ctx.config.STORAGE_FILE_ETAG_ALGORITHM} ETags), MB/s, best of ${ROUNDS}, ` +
        'every side driven from a process of its own',
    );
    for (const { label, size, count, uploadTarget, downloadTarget } of CASES) {
      const seconds = { upload: [] as number[], disk: [] as number[], download: [] as number[], file: [] as number[] };
      const uploaded: string[] = [];
      // The server runs in this process, its clients in others: this process's CPU time is the server's.
      const cpu = { upload: 0, download: 0, file: 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const prefix = `${userId}/${label.replace(' ', '')}-${round}`;
        const upload = [
          'plain',
          server.url,
          server.ctx.anonKey,
          token,
          'lot-images',
          prefix,
          String(size),
          String(count),
        ];
        const since = process.cpuUsage();
        seconds.upload.push(await client(...upload));
        cpu.upload += cpuMs(since);
        seconds.disk.push(await client('disk', direct, prefix, String(size), String(count)));
        uploaded.push(...Array.from({ length: count }, (_, i) => `${prefix}/plain-${i}.jpg`));
      }
      // Downloads: the same objects from this server and, as files on disk, from the static server.
      const rows = await server.ctx.ownerSql<{ name: string; version: string }[]>`
        select name, version from storage.objects where bucket_id = 'lot-images' and name = any(${uploaded})`;
      const versions = new Map(rows.map((r) => [r.name, r.version]));
      const names = Array.from({ length: DOWNLOAD_REPEAT }, () => uploaded.slice(0, count)).flat();
      const ours = names.map((n) => `${server.url}/storage/v1/object/public/lot-images/${n}`);
      const theirs = names.map((n) => {
        const v = versions.get(n)!;
        return fsBackend
          ? `${files.url}/lot-images/${v.slice(0, 2)}/${v}`
          : `${files.url}/${n.replace('/plain-', '/disk-')}`;
      });
      await curlGet(ours.slice(0, 1), size);
      await curlGet(theirs.slice(0, 1), size);
      const ratios: number[] = [];
      const firstByte = { ours: [] as number[], theirs: [] as number[] };
      for (let round = 0; round < DOWNLOAD_ROUNDS; round++) {
        const since = process.cpuUsage();
        seconds.download.push(await curlGet(ours, size, firstByte.ours));
        cpu.download += cpuMs(since);
        const fileCpu = files.cpuMs();
        seconds.file.push(await curlGet(theirs, size, firstByte.theirs));
        cpu.file += files.cpuMs() - fileCpu;
        ratios.push(seconds.file.at(-1)! / seconds.download.at(-1)!);
      }
      const bytes = size * count;
      const downloaded = bytes * DOWNLOAD_REPEAT;
      const up = best(seconds.disk) / best(seconds.upload);
      const down = best(seconds.file) / best(seconds.download);
      console.log(
        `${label} upload    ${mbps(bytes, best(seconds.upload))} MB/s  vs write+fsync ${mbps(bytes, best(seconds.disk))} MB/s  ` +
          `${verdict(up, uploadTarget)}  ${loadAverage()}`,
      );
      console.log(
        `${label} download  ${mbps(downloaded, best(seconds.download))} MB/s  vs static file server ` +
          `${mbps(downloaded, best(seconds.file))} MB/s  ${verdict(down, downloadTarget)}  ${loadAverage()}`,
      );
      const sorted = [...ratios].sort((a, b) => a - b);
      console.log(
        `   download ratio per round (curl, ${names.length} GETs each): ${ratios.map((r) => r.toFixed(2)).join(' ')}` +
          `  (median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)}, range ${sorted[0]!.toFixed(2)}-${sorted.at(-1)!.toFixed(2)})`,
      );
      const median = (list: number[]) => [...list].sort((a, b) => a - b)[list.length >> 1]!;
      const perGet = (list: number[]) => list.reduce((a, b) => a + b, 0) / list.length;
      console.log(
        `   per GET (median): first byte ${median(firstByte.ours).toFixed(2)} ms vs ${median(firstByte.theirs).toFixed(2)} ms,` +
          ` whole GET ${((best(seconds.download) * 1000) / names.length).toFixed(2)} ms vs ` +
          `${((best(seconds.file) * 1000) / names.length).toFixed(2)} ms (best rounds; mean first byte ` +
          `${perGet(firstByte.ours).toFixed(2)} vs ${perGet(firstByte.theirs).toFixed(2)} ms)`,
      );
      const perRequest = (ms: number, requests: number) => (ms / requests).toFixed(1);
      console.log(
        `   server CPU per ${label} request: upload ${perRequest(cpu.upload, ROUNDS * count)} ms, ` +
          `download ${perRequest(cpu.download, DOWNLOAD_ROUNDS * names.length)} ms (the static server: ${perRequest(cpu.file, DOWNLOAD_ROUNDS * names.length)} ms)`,
      );
    }
    await benchResumable(server, userId, token);
  } finally {
    files.stop();
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
