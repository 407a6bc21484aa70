// The isolation matrix of Realtime Authorization: what each role may read and write on realtime.messages (the
// policies that decide private channels) for auction A's topics, another auction's, and topics no shipped policy
// names. Each probe is a request transaction as the role, rolled back; realtime.authorize asks the same questions
// with the same policies. Outcomes as in the domain matrix: rows, none (hidden), deny (42501).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type postgres from 'postgres';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { claimsFor, closeClients, probeAsUser } from '../../../packages/domain/test/support/as-user.js';
import { buildWorld, type World } from '../../../packages/domain/test/support/world.js';
import { migrationSets } from '@auction-ops/server-config/migration-sets';

const ROLES = ['owner', 'admin', 'member', 'other', 'anon', 'super'] as const;
type Role = (typeof ROLES)[number];

let db: TestDatabase;
let w: World;
beforeAll(async () => {
  db = await createTestDatabase(migrationSets);
  w = await buildWorld(db.sql);
  // One stored message on each topic the reads look for.
  for (const topic of topics())
    await db.sql`insert into realtime.messages (topic, extension, event, payload, private)
      values (${topic}, 'broadcast', 'seed', '{}', true)`;
});
afterAll(async () => {
  await closeClients();
  await db?.drop();
});

const topics = () => [
  `auction:${w.a.auctionId}`,
  `auction:${w.a.auctionId}:yard-chat`,
  `auction:${w.b.auctionId}`,
  `auction:${w.a.auctionId}x`,
  'yard-chat',
];

function userOf(role: Role): string | null {
  return { owner: w.a.owner, admin: w.a.admin, member: w.a.member, other: w.b.owner, anon: null, super: w.superAdmin }[
    role
  ];
}

async function outcome(role: Role, run: (tx: postgres.ReservedSql) => Promise<readonly unknown[]>) {
  try {
    const rows = await probeAsUser(db.requestUrl, claimsFor(userOf(role)), run);
    return rows.length > 0 ? 'rows' : 'none';
  } catch (error) {
    const code = (error as { code?: string }).code;
    return code === '42501' ? 'deny' : (code ?? String(error));
  }
}

const read = (topic: string) => (tx: postgres.ReservedSql) =>
  tx`select id from realtime.messages where topic = ${topic} and extension = 'broadcast'`;
const write = (topic: string) => (tx: postgres.ReservedSql) =>
  tx`insert into realtime.messages (topic, extension, event, payload, private)
     values (${topic}, 'broadcast', 'probe', '{}', true) returning id`;

// One token per role, in ROLES order. Auction B's owner is "other"; super admins reach every auction's topics.
const cases: Array<[string, (w: World) => string, 'read' | 'write', string]> = [
  ["auction A's topic", (w) => `auction:${w.a.auctionId}`, 'read', 'rows rows rows none none rows'],
  ["auction A's topic", (w) => `auction:${w.a.auctionId}`, 'write', 'rows rows rows deny deny rows'],
  ["a sub-topic of auction A's", (w) => `auction:${w.a.auctionId}:yard-chat`, 'read', 'rows rows rows none none rows'],
  ["a sub-topic of auction A's", (w) => `auction:${w.a.auctionId}:yard-chat`, 'write', 'rows rows rows deny deny rows'],
  ["auction B's topic", (w) => `auction:${w.b.auctionId}`, 'read', 'none none none rows none rows'],
  ["auction B's topic", (w) => `auction:${w.b.auctionId}`, 'write', 'deny deny deny rows deny rows'],
  [
    'a look-alike of auction A (id with a suffix)',
    (w) => `auction:${w.a.auctionId}x`,
    'read',
    'none none none none none none',
  ],
  [
    'a look-alike of auction A (id with a suffix)',
    (w) => `auction:${w.a.auctionId}x`,
    'write',
    'deny deny deny deny deny deny',
  ],
  ['a topic no shipped policy names', () => 'yard-chat', 'read', 'none none none none none none'],
  ['a topic no shipped policy names', () => 'yard-chat', 'write', 'deny deny deny deny deny deny'],
];

describe('realtime.messages policies (private channels)', () => {
  it.each(cases.map(([name, topicOf, kind, expected]) => [`${kind} ${name}`, topicOf, kind, expected] as const))(
    '%s',
    async (_name, topicOf, kind, expected) => {
      const topic = topicOf(w);
      const actual: string[] = [];
      for (const role of ROLES) actual.push(`${role}:${await outcome(role, (kind === 'read' ? read : write)(topic))}`);
      expect(actual).toEqual(expected.split(' ').map((o, i) => `${ROLES[i]}:${o}`));
    },
  );

  it('realtime.authorize answers as the matrix does, for a member and for another auction', async () => {
    const ask = (user: string) => db.sql<{ kind: string; may_read: boolean; may_write: boolean }[]>`
      select kind, may_read, may_write from realtime.authorize(${`auction:${w.a.auctionId}`}, 'authenticated',
        ${JSON.stringify(claimsFor(user))}::text::jsonb) order by kind`;
    expect(await ask(w.a.member)).toEqual([
      { kind: 'broadcast', may_read: true, may_write: true },
      { kind: 'presence', may_read: true, may_write: true },
    ]);
    expect(await ask(w.b.owner)).toEqual([
      { kind: 'broadcast', may_read: false, may_write: false },
      { kind: 'presence', may_read: false, may_write: false },
    ]);
    // Nothing the checks wrote is left behind.
    const [{ n }] = await db.sql<
      { n: number }[]
    >`select count(*)::int as n from realtime.messages where event = 'authorization'`;
    expect(n).toBe(0);
  });
});
