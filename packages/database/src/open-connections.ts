// postgres.js opens a pool's connections on demand, so the first requests after a start each waited for a
// connection's start-up, its password exchange and a new backend, all at once as traffic arrived.
import type postgres from 'postgres';

/**
 * Opens up to `count` connections of `sql`: as many statements at once, each on a connection of its own (the pool
 * gives a statement a new connection while it has fewer than its maximum). Resolves with how many opened, or with
 * what opened so far after `waitMs` (an unreachable pooler must not hold a start for its connect timeout); the rest
 * go on opening. Best effort: a connection that cannot open is the pool's to retry on demand, as before.
 */
export async function openConnections(sql: postgres.Sql, count: number, waitMs: number): Promise<number> {
  let opened = 0;
  const all = Promise.all(
    Array.from({ length: count }, () =>
      sql`select 1`.then(
        () => void opened++,
        () => {},
      ),
    ),
  );
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, waitMs);
  });
  await Promise.race([all, deadline]);
  clearTimeout(timer);
  return opened;
}
