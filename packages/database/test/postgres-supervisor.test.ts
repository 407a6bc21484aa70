// The supervised embedded PostgreSQL against real SIGKILLs of its postmaster: started again on the same port with the
// committed rows intact, and after too many deaths within the window it gives up and says so.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, expect, it } from 'vitest';
import { reconnectBackoff, startSupervisedPostgres } from '../src/index.js';
import { waitFor } from '../src/embedded-postgres.js';

const dir = mkdtempSync(join(tmpdir(), 'auction-ops-supervised-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const postmasterPid = () => Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);

it('restarts a killed postmaster on its port with committed rows kept, and gives up after too many deaths', async () => {
  const lines: string[] = [];
  const gaveUp: Error[] = [];
  const cluster = await startSupervisedPostgres({
    dir,
    restart: { maxFailures: 2, windowMs: 60_000 },
    report: (level, message) => lines.push(`${level} ${message}`),
    onGiveUp: (error) => gaveUp.push(error),
  });
  const sql = postgres(cluster.url, { max: 1, onnotice: () => {}, backoff: reconnectBackoff });
  try {
    await sql`create table kept (n int)`;
    await sql`insert into kept values (1), (2)`;
    const first = postmasterPid();
    process.kill(first, 'SIGKILL');
    await waitFor(() => lines.includes('warn embedded PostgreSQL restarted'), 30_000, 'the restart');
    expect(postmasterPid()).not.toBe(first);
    expect(lines[0]).toBe('error embedded PostgreSQL exited unexpectedly; restarting it');
    // Same URL (same port): the pool reconnects by itself, and the committed rows survived crash recovery.
    await waitFor(
      async () => (await sql`select count(*)::int as n from kept`.catch(() => []))[0]?.n === 2,
      10_000,
      'rows',
    );
    expect(gaveUp).toEqual([]);

    process.kill(postmasterPid(), 'SIGKILL');
    await waitFor(() => gaveUp.length > 0, 10_000, 'giving up');
    expect(gaveUp[0]!.message).toMatch(/failed 2 times within 60 s; giving up/);
    await new Promise((r) => setTimeout(r, 1000));
    expect(lines.filter((l) => l.includes('restarted'))).toHaveLength(1); // no restart after giving up
  } finally {
    await sql.end({ timeout: 0 });
    await cluster.stop();
  }
}, 120_000);
