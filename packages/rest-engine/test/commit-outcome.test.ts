// A write whose connection is lost while it commits (issue 57): the engine cannot know whether the COMMIT it sent
// ran, so it answers 503 08007 (transaction resolution unknown), never runs the write again, and never calls it a
// conflict. A loss before COMMIT was sent is a plain PGRST000: nothing was written. A relay on loopback in front of
// PostgreSQL loses the chosen answer on purpose; the engine serves real HTTP.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../database/src/testing/index.js';
import { createRestEngine, type RestEngine } from '../src/index.js';
import { type AnswerCuttingRelay, startAnswerCuttingRelay } from './answer-cutting-relay.js';
import { FIXTURE, USER_A } from './helpers.js';
import { serveEngine } from './http-server.js';

let db: TestDatabase;
let relay: AnswerCuttingRelay;
let sql: postgres.Sql;
let engine: RestEngine;
let http: Awaited<ReturnType<typeof serveEngine>>;
let seq = 0;

beforeAll(async () => {
  db = await createTestDatabase(FIXTURE);
  relay = await startAnswerCuttingRelay(db.requestUrl);
  // One connection, so the statements of each request are the ones the relay sees next.
  sql = postgres(relay.url, { max: 1, onnotice: () => {} });
  engine = await createRestEngine({ sql, schemas: ['public'], anonRole: 'anon', listen: false });
  http = await serveEngine(engine);
});
afterAll(async () => {
  await http?.close();
  await engine?.close();
  await sql?.end({ timeout: 1 });
  await relay?.close();
  await db?.drop();
});

/** POST /notes with a body no other request writes, so the rows carrying it are this request's. */
async function postNote(headers: Record<string, string> = {}) {
  const marker = `note ${process.pid} ${++seq}`;
  const res = await fetch(`${http.url}/notes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-test-claims': JSON.stringify(USER_A), ...headers },
    body: JSON.stringify({ body: marker }),
  });
  return { status: res.status, json: (await res.json().catch(() => null)) as { code?: string } | null, marker };
}

/** The same, with the connection cut when the server's answer tagged `tag` comes back. */
async function postNoteCutAt(tag: string, headers: Record<string, string> = {}) {
  const cut = relay.cutAt(tag);
  const res = await postNote(headers);
  await cut;
  return res;
}

async function rowsWith(marker: string): Promise<number> {
  const [{ n }] = await db.sql<{ n: number }[]>`select count(*)::int as n from notes where body = ${marker}`;
  return n;
}

const ONE_OBJECT = { accept: 'application/vnd.pgrst.object+json', prefer: 'return=representation' };

describe('the connection lost after COMMIT was sent', () => {
  it('answers 503 08007 for a pipelined write, which is in the table once', async () => {
    const res = await postNoteCutAt('COMMIT');
    expect(res.status).toBe(503);
    expect(res.json?.code).toBe('08007');
    expect(await rowsWith(res.marker)).toBe(1);
  });

  it('answers 503 08007 for a write that decides after its result, which is in the table once', async () => {
    const res = await postNoteCutAt('COMMIT', ONE_OBJECT);
    expect(res.status).toBe(503);
    expect(res.json?.code).toBe('08007');
    expect(await rowsWith(res.marker)).toBe(1);
  });

  it('leaves the pool serving: the next write is answered 201 and written once', async () => {
    const res = await postNote(ONE_OBJECT);
    expect(res.status).toBe(201);
    expect(await rowsWith(res.marker)).toBe(1);
  });
});

describe('the connection lost before COMMIT was sent', () => {
  it('answers 503 PGRST000, and nothing was written', async () => {
    // A deciding write sends COMMIT only after its result: losing the statements' answers loses the transaction.
    const res = await postNoteCutAt('SELECT 1', ONE_OBJECT);
    expect(res.status).toBe(503);
    expect(res.json?.code).toBe('PGRST000');
    expect(await rowsWith(res.marker)).toBe(0);
  });
});
