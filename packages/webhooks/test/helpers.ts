// Test support: auctions with members of each role, request-role transactions, and loopback HTTP receivers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type postgres from 'postgres';
import { inRequestTransaction } from '@auction-ops/database';

export interface Auction {
  id: string;
  owner: string;
  admin: string;
  member: string;
  outsider: string;
}

let seq = 0;
export async function createAuction(sql: postgres.Sql): Promise<Auction> {
  const tag = `${process.pid}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;
  const user = async (name: string) => {
    const [u] = await sql`insert into auth.users (email, raw_user_meta_data)
      values (${`${name}-${tag}@x.test`}, ${sql.json({ full_name: name })}) returning id`;
    return u.id as string;
  };
  const [owner, admin, member, outsider] = [
    await user('owner'),
    await user('admin'),
    await user('member'),
    await user('outsider'),
  ];
  const [a] =
    await sql`insert into public.auctions (name, slug) values (${`Auction ${tag}`}, ${`a-${tag}`}) returning id`;
  await sql`insert into public.auction_members (auction_id, user_id, role) values
    (${a.id}, ${owner}, 'owner'), (${a.id}, ${admin}, 'admin'), (${a.id}, ${member}, 'team_member')`;
  return { id: a.id, owner, admin, member, outsider };
}

/** Runs fn in a transaction as the request role would (authenticator -> role, claims), like the server does. */
export function asRole<T>(
  requestSql: postgres.Sql,
  role: 'authenticated' | 'service_role' | 'anon',
  userId: string | null,
  fn: (tx: postgres.ReservedSql) => Promise<T>,
): Promise<T> {
  const claims = { role, ...(userId ? { sub: userId } : {}) };
  return inRequestTransaction(requestSql, role, claims, fn);
}

export async function createEndpoint(
  sql: postgres.Sql,
  auctionId: string,
  url: string,
  opts: { events?: string[]; secret?: string; active?: boolean } = {},
): Promise<string> {
  const [e] = await sql`insert into public.webhook_endpoints (auction_id, url, events, secret, is_active)
    values (${auctionId}, ${url}, ${opts.events ?? ['message.created']}, ${opts.secret ?? 'test-secret-0123456789'},
            ${opts.active ?? true}) returning id`;
  return e.id as string;
}

export async function emit(
  sql: postgres.Sql,
  auctionId: string,
  type = 'message.created',
  data: object = { n: 1 },
): Promise<string> {
  const [row] =
    await sql`select domain.emit_event(${auctionId}, ${type}, ${sql.json(data as postgres.JSONValue)}) as id`;
  return row.id as string;
}

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  requests: Received[];
  /** Resolves when `n` requests have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export type Reply = (req: Received, res: http.ServerResponse, index: number) => void;

export const ok: Reply = (_req, res) => {
  res.writeHead(200).end('ok');
};

/** A real HTTP server on loopback answering with `reply` (which may also never answer). */
export async function startReceiver(reply: Reply = ok): Promise<Receiver> {
  const requests: Received[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      requests.push(r);
      for (const w of waiters.filter((w) => requests.length >= w.n)) w.resolve();
      reply(r, res, requests.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    waitFor(n, timeoutMs = 20_000) {
      if (requests.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`receiver got ${requests.length} of ${n} requests`)), timeoutMs);
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(t);
            resolve();
          },
        });
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function waitUntil(check: () => Promise<boolean>, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
