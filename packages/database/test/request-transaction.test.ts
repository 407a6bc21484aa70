// inRequestTransaction: the work's writes commit or roll back as one, the connection goes back to the pool outside
// any transaction and role, and BEGIN and the context statement go out together (one round trip, not two).
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import postgres from 'postgres';
import { createTestDatabase, type TestDatabase } from '../src/testing/index.js';
import { inRequestTransaction } from '../src/index.js';

let db: TestDatabase;
let owner: postgres.Sql;
beforeAll(async () => {
  db = await createTestDatabase([]);
  owner = postgres(db.ownerUrl, { max: 1, onnotice: () => {} });
  await owner`create table notes (body text not null)`;
  await owner`grant select, insert on notes to authenticated`;
});
afterAll(async () => {
  await owner.end();
  await db.drop();
});

const USER = { sub: 'u-1', role: 'authenticated' };

it('commits the work, or rolls all of it back, and hands the connection back clean either way', async () => {
  const request = postgres(db.requestUrl, { max: 1, onnotice: () => {} });
  try {
    await inRequestTransaction(request, 'authenticated', USER, (tx) => tx`insert into notes values ('kept')`);
    const failing = inRequestTransaction(request, 'authenticated', USER, async (tx) => {
      await tx`insert into notes values ('dropped')`;
      throw new Error('the work failed');
    });
    await expect(failing).rejects.toThrow('the work failed');
    // A statement that fails inside the work: the transaction is aborted and rolled back, not left open.
    const broken = inRequestTransaction(request, 'authenticated', USER, async (tx) => {
      await tx`insert into notes values ('dropped too')`;
      await tx`insert into notes values (null)`;
    });
    await expect(broken).rejects.toMatchObject({ code: '23502' });
    expect(await owner`select body from notes order by body`).toEqual([{ body: 'kept' }]);
    // The pool's one connection: no role or claims left over, and idle outside any transaction.
    const [state] = await request`select current_user as who, current_setting('request.jwt.claims', true) as claims`;
    expect(state).toEqual({ who: 'authenticator', claims: '' });
    const sessions = await owner`select state from pg_stat_activity
      where datname = current_database() and usename = 'authenticator'`;
    expect(sessions).toEqual([{ state: 'idle' }]);
  } finally {
    await request.end();
  }
});

/**
 * A proxy to the database that, once held, keeps the server's answers back until the client has sent the context
 * statement: a client that waits for BEGIN's answer before sending it never gets one.
 */
function holdingProxy(target: { host: string; port: number }) {
  let holding = false;
  let server: Server;
  const listening = new Promise<number>((resolve) => {
    server = createServer((client: Socket) => {
      const upstream = connect(target.port, target.host);
      const held: Buffer[] = [];
      client.on('data', (data: Buffer) => {
        upstream.write(data);
        if (holding && data.includes('set_config')) {
          holding = false;
          for (const chunk of held.splice(0)) client.write(chunk);
        }
      });
      upstream.on('data', (data: Buffer) => (holding ? held.push(data) : client.write(data)));
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.on('error', () => {});
      upstream.on('error', () => {});
    }).listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  return {
    listening,
    hold() {
      holding = true;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

it('sends the context statement without waiting for the answer to BEGIN', async () => {
  const url = new URL(db.requestUrl);
  const proxy = holdingProxy({ host: url.hostname, port: Number(url.port) });
  url.port = String(await proxy.listening);
  const request = postgres(url.toString(), { max: 1, onnotice: () => {} });
  try {
    await request`select 1`; // connected (and authenticated) before answers are held
    proxy.hold();
    const run = inRequestTransaction(request, 'authenticated', USER, (tx) => tx`select current_user as who`);
    let stuck: NodeJS.Timeout | undefined;
    const deadlock = new Promise((_, reject) => {
      stuck = setTimeout(() => reject(new Error('BEGIN was answered only after the context was sent')), 5000);
    });
    expect(await Promise.race([run, deadlock])).toEqual([{ who: 'authenticated' }]);
    clearTimeout(stuck);
  } finally {
    await request.end({ timeout: 1 });
    await proxy.close();
  }
});
