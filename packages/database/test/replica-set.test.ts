// The replica set against real PostgreSQL: each "replica" is the test database reached through a TCP relay that
// the test opens and closes, so a replica can disappear and come back without stopping Postgres.
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createReplicaSet, type ReplicaSet } from '../src/index.js';
import { createTestDatabase, startTcpRelay, type TestDatabase } from '../src/testing/index.js';

let db: TestDatabase;
let primary: postgres.Sql;
const sets: ReplicaSet[] = [];

/** A relay on a fixed port to the test database's server; `close()` refuses connections until `open()`. */
const relay = (mode: 'forward' | 'silent' = 'forward') => startTcpRelay(db.requestUrl, mode);

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function replicaSet(urls: string[], checkIntervalMs = 3_600_000): Promise<ReplicaSet> {
  const set = await createReplicaSet({ urls, primary, checkIntervalMs, checkTimeoutMs: 500, poolOptions: { max: 2 } });
  sets.push(set);
  return set;
}

beforeAll(async () => {
  db = await createTestDatabase([]);
  primary = postgres(db.requestUrl, { max: 1, onnotice: () => {} });
});

afterEach(async () => {
  for (const set of sets.splice(0)) await set.close();
});

afterAll(async () => {
  await primary?.end();
  await db?.drop();
});

describe('createReplicaSet', () => {
  it('hands out the healthy replicas in turn and never the unreachable one', async () => {
    const [a, b, down] = [await relay(), await relay(), await relay()];
    await down.close();
    const set = await replicaSet([a.url, b.url, down.url]);
    expect(set.size).toBe(3);
    expect(set.status()).toEqual([
      // A server not in recovery has no replay lag; one that never answered has none measured.
      { name: `127.0.0.1:${a.port}/${db.name}`, healthy: true, lagMs: 0 },
      { name: `127.0.0.1:${b.port}/${db.name}`, healthy: true, lagMs: 0 },
      { name: `127.0.0.1:${down.port}/${db.name}`, healthy: false, lagMs: null },
    ]);
    const picks = Array.from({ length: 6 }, () => set.reader());
    expect(picks.every((sql) => set.isReplica(sql))).toBe(true);
    expect(new Set(picks).size).toBe(2);
    expect(picks[0]).not.toBe(picks[1]);
    expect(picks.slice(2)).toEqual([...picks.slice(0, 2), ...picks.slice(0, 2)]);
    expect(set.isReplica(primary)).toBe(false);
    await Promise.all([a.close(), b.close()]);
  });

  it('reads from the primary when no replica is healthy or none is configured', async () => {
    const none = await replicaSet([]);
    expect(none.size).toBe(0);
    expect(none.reader()).toBe(primary);
    const down = await relay();
    await down.close();
    const set = await replicaSet([down.url]);
    expect(set.reader()).toBe(primary);
  });

  it('counts a replica that accepts but does not answer within the timeout as down', async () => {
    const silent = await relay('silent');
    const set = await replicaSet([silent.url]);
    expect(set.status()[0].healthy).toBe(false);
    expect(set.reader()).toBe(primary);
    await silent.close();
  });

  it('takes a replica a request reported out of rotation until a check finds it answering', async () => {
    const a = await relay();
    const set = await replicaSet([a.url]);
    const replica = set.reader();
    expect(set.isReplica(replica)).toBe(true);
    set.markDown(replica, 'PGRST000');
    expect(set.status()[0].healthy).toBe(false);
    expect(set.reader()).toBe(primary);
    await set.check();
    expect(set.reader()).toBe(replica);
    expect(await replica`select current_user as u`).toEqual([{ u: 'authenticator' }]);
    await a.close();
  });

  it('takes a replica out and back in with its periodic check', async () => {
    const a = await relay();
    const set = await replicaSet([a.url], 50);
    expect(set.status()[0].healthy).toBe(true);
    await a.close();
    await until('the check to notice the replica is gone', () => !set.status()[0].healthy);
    expect(set.reader()).toBe(primary);
    await a.open();
    await until('the check to notice the replica is back', () => set.status()[0].healthy);
    expect(set.isReplica(set.reader())).toBe(true);
    await a.close();
  });
});
