// What the start of an embedded cluster tells the operator: a cluster killed rather than stopped is named as one that
// replays its WAL first, and a start that takes long repeats PostgreSQL's own last log line instead of staying silent
// and giving up after a fixed time while PostgreSQL is still starting up.
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, expect, it } from 'vitest';
import { startEmbeddedPostgres, systemUser } from '../src/index.js';
import { shutDownCleanly } from '../src/cluster-startup.js';
import { waitFor } from '../src/embedded-postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'auction-ops-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pgdata = join(dir, 'data');
const postmasterPid = () => Number(readFileSync(join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]);
const NOT_CLEAN = /was not shut down cleanly: it replays its WAL before it accepts connections/;

it('names a killed cluster as one that replays its WAL first, and a stopped one not', async () => {
  const first = await startEmbeddedPostgres({ dir });
  const sql = postgres(first.url, { max: 1, onnotice: () => {} });
  await sql`create table kept (n int)`;
  await sql`insert into kept select generate_series(1, 1000)`;
  await sql.end();
  const pid = postmasterPid();
  expect(shutDownCleanly(pgdata)).toBe(false); // running: pg_control says "in production"
  process.kill(pid, 'SIGKILL');
  await waitFor(() => first.hasExited(), 30_000, 'the postmaster to die');
  expect(shutDownCleanly(pgdata)).toBe(false);

  const lines: string[] = [];
  const recovered = await startEmbeddedPostgres({ dir, log: (line) => lines.push(line) });
  try {
    expect(lines.filter((l) => NOT_CLEAN.test(l))).toHaveLength(1);
    expect(lines.at(-1)).toMatch(/^PostgreSQL recovered and accepts connections \(\d+\.\d s\)$/);
    expect(lines[0]).toContain(pgdata);
    const again = postgres(recovered.url, { max: 1, onnotice: () => {} });
    expect((await again`select count(*)::int as n from kept`)[0]!.n).toBe(1000);
    await again.end();
  } finally {
    await recovered.stop();
  }
  expect(shutDownCleanly(pgdata)).toBe(true);

  const quiet: string[] = [];
  const clean = await startEmbeddedPostgres({ dir, log: (line) => quiet.push(line) });
  await clean.stop();
  expect(quiet).toEqual([]);
}, 120_000);

it('keeps waiting while PostgreSQL says it is starting up, quoting its log, and fails when it exits', async () => {
  // A standby without hot standby answers every connection "not accepting connections" (57P03) for as long as it
  // waits for WAL that never comes: a start that only ends when the postmaster does.
  const signal = join(pgdata, 'standby.signal');
  writeFileSync(signal, '');
  const owner = systemUser();
  if (owner) chownSync(signal, owner.uid, owner.gid);
  const lines: string[] = [];
  const starting = startEmbeddedPostgres({
    dir,
    settings: { hot_standby: 'off' },
    progressIntervalMs: 200,
    log: (line) => lines.push(line),
  });
  const outcome = starting.then(
    () => 'started',
    (error: Error) => error.message,
  );
  await waitFor(() => lines.length >= 3, 30_000, 'three progress lines');
  expect(lines.filter((l) => NOT_CLEAN.test(l))).toEqual([]); // asked for (standby.signal), not a crash
  expect(lines[0]).toMatch(/^PostgreSQL is still starting \(\d+ s\); its log: /);
  // Quoted without its timestamp prefix: what PostgreSQL says it does (entering standby mode, waiting for WAL, ...).
  expect(lines[0]).toMatch(/its log: (LOG|FATAL|DETAIL|HINT): /);
  process.kill(postmasterPid(), 'SIGKILL');
  expect(await outcome).toMatch(/^postgres exited during start; see .*postgres\.log$/);
}, 120_000);
