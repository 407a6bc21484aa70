import type postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { PoolTimeoutError, reserveWithin } from './request-transaction.js';

/** A pool whose reservation comes when `grant` is called (never, unless called). */
function pool() {
  const released: number[] = [];
  let grant: (c: postgres.ReservedSql) => void = () => {};
  const sql = {
    reserve: () =>
      new Promise<postgres.ReservedSql>((resolve) => {
        grant = resolve;
      }),
  } as unknown as postgres.Sql;
  const connection = { release: () => released.push(1) } as unknown as postgres.ReservedSql;
  return { sql, released, grant: () => grant(connection), connection };
}

describe('reserveWithin', () => {
  it('hands over a connection that comes in time', async () => {
    const p = pool();
    const reserved = reserveWithin(p.sql, 1_000);
    p.grant();
    expect(await reserved).toBe(p.connection);
  });

  it('fails with a timeout code after the deadline, and releases a reservation that comes late', async () => {
    const p = pool();
    const error = await reserveWithin(p.sql, 20).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PoolTimeoutError);
    expect((error as PoolTimeoutError).code).toBe('POOL_TIMEOUT');
    p.grant();
    await new Promise((r) => setTimeout(r, 0));
    expect(p.released).toEqual([1]);
  });
});
