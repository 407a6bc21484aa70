// Backup benchmark (`pnpm bench backup`). Nothing here asserts timings. On a server with an embedded cluster of
// BENCH_BACKUP_MB (default 1024) archiving to a directory target:
//   backup and restore throughput (MB/s) against `cp -r` of the same directory in the same run (target >= 0.5);
//   REST throughput (a 10-row read with the anon key, 20 concurrent clients, BENCH_SECONDS each) without and
//   while a backup runs (target: at most 10% lower).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBackup, resolveTarget, restoreBackup } from '../packages/backups/src/index.js';
import { builtServer } from './support/bench-server.js';
import { SMOKE, sized } from './support/bench-smoke.js';

const MB = 1024 * 1024;
// 16 MB and 1 s runs in the smoke run (`pnpm bench:smoke`).
const SIZE_MB = Number(process.env.BENCH_BACKUP_MB ?? sized(1024, 16));
const SECONDS = Number(process.env.BENCH_SECONDS ?? sized(10, 1));

const timed = async <T>(run: () => Promise<T> | T): Promise<[T, number]> => {
  const start = performance.now();
  const result = await run();
  return [result, (performance.now() - start) / 1000];
};
const du = (dir: string) => Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);

/** Requests per second of `url` with `concurrency` clients for `seconds`, while `during` (if any) runs. */
async function load(url: string, headers: Record<string, string>, seconds: number): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  const client = async () => {
    while (performance.now() < deadline) {
      const res = await fetch(url, { headers });
      if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
      await res.arrayBuffer();
      done++;
    }
  };
  await Promise.all(Array.from({ length: 20 }, client));
  return done / seconds;
}

export async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'auction-ops-bench-backup-'));
  const dataDir = join(root, 'data');
  const target = resolveTarget(join(root, 'target'));
  const { startServer, loadConfig } = await builtServer();
  const server = await startServer(
    loadConfig({
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'error',
      BACKUP_TARGET: target.dir,
      RATE_LIMITS_ENABLED: 'false',
      WORKERS_ENABLED: 'false',
    }),
  );
  const sql = server.ctx.ownerSql;
  try {
    console.log(`filling the cluster to about ${SIZE_MB} MB ...`);
    await sql`create table bench_items (id int primary key, title text not null)`;
    await sql`insert into bench_items select g, 'item ' || g from generate_series(1, 1000) g`;
    await sql`grant select on bench_items to anon`;
    await sql`create table bench_filler (id int, body text)`;
    const rows = Math.round((SIZE_MB * MB) / 1100);
    for (let at = 0; at < rows; at += 100_000)
      await sql`insert into bench_filler select g, repeat(md5(g::text), 32) from generate_series(${at}::int, ${Math.min(at + 100_000, rows) - 1}::int) g`;
    await sql`checkpoint`;
    await sql`notify pgrst, 'reload schema'`;
    const clusterDir = join(dataDir, 'postgres', 'data');
    console.log(`cluster: ${(du(clusterDir) / MB).toFixed(0)} MB`);

    const [, copySeconds] = await timed(() => execFileSync('cp', ['-r', dataDir, join(root, 'plain-copy')]));
    const copied = du(join(root, 'plain-copy'));
    rmSync(join(root, 'plain-copy'), { recursive: true, force: true });
    const copyRate = copied / MB / copySeconds;
    console.log(`plain copy (cp -r DATA_DIR):  ${copyRate.toFixed(0).padStart(5)} MB/s  (${copySeconds.toFixed(1)} s)`);

    const url = `${server.url}/rest/v1/bench_items?select=id,title&limit=10`;
    const headers = { apikey: server.ctx.anonKey, authorization: `Bearer ${server.ctx.anonKey}` };
    // The schema cache reloads on the NOTIFY above, asynchronously.
    while (!(await fetch(url, { headers })).ok) await new Promise((r) => setTimeout(r, 100));
    if (!SMOKE) await load(url, headers, 3); // warm-up
    const idle = await load(url, headers, SECONDS);

    const [manifest, backupSeconds] = await timed(() =>
      createBackup({ ownerUrl: server.ctx.ownerUrl, dataDir, target }),
    );
    // A second backup under load (its own throughput is not the figure: the load shares the two cores).
    const busyRun = createBackup({ ownerUrl: server.ctx.ownerUrl, dataDir, target });
    const busy = await load(url, headers, SECONDS);
    await busyRun;
    const backupRate = manifest.bytes / MB / backupSeconds;
    console.log(
      `backup create:                ${backupRate.toFixed(0).padStart(5)} MB/s  (${backupSeconds.toFixed(1)} s, ${(manifest.bytes / MB).toFixed(0)} MB)  ratio ${(backupRate / copyRate).toFixed(2)}`,
    );
    console.log(
      `REST reads: ${idle.toFixed(0)} req/s idle, ${busy.toFixed(0)} req/s during the backup: ${(((idle - busy) / idle) * 100).toFixed(1)}% lower`,
    );

    const [, restoreSeconds] = await timed(() =>
      restoreBackup({ target, id: manifest.id, dataDir: join(root, 'restored') }),
    );
    const restoreRate = manifest.bytes / MB / restoreSeconds;
    console.log(
      `backup restore (with replay): ${restoreRate.toFixed(0).padStart(5)} MB/s  (${restoreSeconds.toFixed(1)} s)  ratio ${(restoreRate / copyRate).toFixed(2)}`,
    );
  } finally {
    await server.close();
    target.store.close();
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
