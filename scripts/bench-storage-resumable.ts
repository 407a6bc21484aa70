// The resumable-upload part of `pnpm bench storage`: 50 MB uploaded through TUS (tus-js-client, 6 MB chunks)
// against a plain upload of the same size, both from a separate load process (support/upload-load-client.ts),
// alternated so neither gets the warmer disk. Target: resumable throughput at least 0.8 of plain.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { RunningServer } from '../apps/server/src/index.js';
import { loadAverage } from './support/load-average.js';
import { sized } from './support/bench-smoke.js';

const MB = 1024 * 1024;
// The smoke run (`pnpm bench:smoke`): 7 MB (two chunks), one round.
const SIZE = sized(50, 7) * MB;
const ROUNDS = sized(4, 1);
const BUCKET = 'bench-resumable';
const CLIENT = fileURLToPath(new URL('./support/upload-load-client.ts', import.meta.url));
const run = promisify(execFile);

async function timedLoad(server: RunningServer, token: string, mode: 'plain' | 'tus', prefix: string) {
  const args = [mode, server.url, server.ctx.anonKey, token, BUCKET, prefix, String(SIZE), '1'];
  const { stdout } = await run(process.execPath, ['--import', 'tsx', CLIENT, ...args], { maxBuffer: MB });
  return (JSON.parse(stdout.trim()) as { seconds: number }).seconds;
}

/** Needs STORAGE_FILE_SIZE_LIMIT of at least 50 MB; `userId` writes under its own folder. */
export async function benchResumable(server: RunningServer, userId: string, token: string): Promise<void> {
  await server.ctx.ownerSql`
    insert into storage.buckets (id, name, file_size_limit) values (${BUCKET}, ${BUCKET}, ${60 * MB})
    on conflict (id) do nothing`;
  const seconds = { plain: [] as number[], tus: [] as number[] };
  // The server runs in this process and the client in another: this process's CPU time is the server's.
  const cpu = { plain: 0, tus: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of ['plain', 'tus'] as const) {
      const since = process.cpuUsage();
      seconds[mode].push(await timedLoad(server, token, mode, `${userId}/round-${round}`));
      const used = process.cpuUsage(since);
      cpu[mode] += (used.user + used.system) / 1000;
    }
  }
  const cpuPerMb = (mode: 'plain' | 'tus') => cpu[mode] / ROUNDS / (SIZE / MB);
  const best = (list: number[]) => Math.min(...list);
  const mbps = (s: number) => (SIZE / MB / s).toFixed(1);
  const ratio = best(seconds.plain) / best(seconds.tus);
  console.log(
    `${SIZE / MB} MB resumable upload (TUS, 6 MB chunks) ${mbps(best(seconds.tus))} MB/s  vs plain upload ` +
      `${mbps(best(seconds.plain))} MB/s  ratio ${ratio.toFixed(2)} (target >= 0.80: ${ratio >= 0.8 ? 'met' : 'NOT met'})` +
      `  ${loadAverage()}`,
  );
  console.log(
    `   server CPU per MB: resumable ${cpuPerMb('tus').toFixed(1)} ms, plain ${cpuPerMb('plain').toFixed(1)} ms, ` +
      `ratio ${(cpuPerMb('plain') / cpuPerMb('tus')).toFixed(2)} (less hostage to the machine's other load)`,
  );
}
