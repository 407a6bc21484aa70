// The wire protocol with a raw WebSocket: both frame versions, heartbeats, binary broadcast frames, error replies,
// and the limits that protect the process (connections per address, channels, events per second, payload size).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from './support/test-server.js';
import { signUp, sleep, until, type RealtimeUser } from './realtime.fixture.js';

let server: TestServer;
let user: RealtimeUser;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  server = await startTestServer({
    AUTH_RATE_LIMIT_SIGN_UP: '1000',
    WORKERS_ENABLED: 'false',
    REALTIME_MAX_CONNECTIONS_PER_IP: '3',
    REALTIME_MAX_CHANNELS_PER_CONNECTION: '2',
    REALTIME_MAX_EVENTS_PER_SECOND: '5',
    REALTIME_MAX_PAYLOAD_BYTES: '1024',
  });
  user = await signUp(server, 'wire');
});

// At most three connections per address here: each test closes its own (the server counts them down on close).
afterEach(async () => {
  for (const ws of sockets.splice(0)) ws.terminate();
  await sleep(100);
});

afterAll(async () => {
  await user?.client.removeAllChannels();
  await server?.stop();
});

type Received = unknown[];

/** A raw connection that records what it receives: vsn 2 frames as arrays, vsn 1 as objects, bytes as Buffers. */
async function connect(vsn: '1.0.0' | '2.0.0'): Promise<{ ws: WebSocket; got: Received }> {
  const ws = new WebSocket(
    `${server.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${server.anonKey}&vsn=${vsn}`,
  );
  sockets.push(ws);
  const got: Received = [];
  ws.on('message', (data, isBinary) => got.push(isBinary ? (data as Buffer) : JSON.parse(String(data))));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return { ws, got };
}

const join = (topic: string, ref: string, config: object = {}) => [
  ref,
  ref,
  `realtime:${topic}`,
  'phx_join',
  { config, access_token: user.token },
];

function replyTo(got: Received, ref: string): Promise<{ status: string; response: Record<string, unknown> }> {
  return until(() => got.some((f) => Array.isArray(f) && f[1] === ref && f[3] === 'phx_reply'), `reply ${ref}`).then(
    () => (got.find((f) => Array.isArray(f) && f[1] === ref && f[3] === 'phx_reply') as unknown[])[4] as never,
  );
}

describe('frames', () => {
  it('vsn 1.0.0 objects: heartbeat and join answered in the same shape', async () => {
    const { ws, got } = await connect('1.0.0');
    ws.send(JSON.stringify({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: 'h1', join_ref: null }));
    ws.send(
      JSON.stringify({
        topic: 'realtime:v1-room',
        event: 'phx_join',
        payload: { config: {}, access_token: user.token },
        ref: 'j1',
        join_ref: 'j1',
      }),
    );
    await until(() => got.length >= 2, 'two replies');
    expect(got).toContainEqual({
      topic: 'phoenix',
      event: 'phx_reply',
      payload: { status: 'ok', response: {} },
      ref: 'h1',
      join_ref: null,
    });
    expect(got).toContainEqual({
      topic: 'realtime:v1-room',
      event: 'phx_reply',
      payload: { status: 'ok', response: { postgres_changes: [] } },
      ref: 'j1',
      join_ref: 'j1',
    });
  });

  it('vsn 2.0.0: a binary broadcast frame (kind 3) reaches the room as JSON, bytes as a kind 4 frame', async () => {
    const a = await connect('2.0.0');
    const b = await connect('2.0.0');
    a.ws.send(JSON.stringify(join('bin-room', '1')));
    b.ws.send(JSON.stringify(join('bin-room', '1')));
    expect((await replyTo(a.got, '1')).status).toBe('ok');
    expect((await replyTo(b.got, '1')).status).toBe('ok');
    const frame = (encoding: number, payload: Buffer) => {
      const parts = ['1', '2', 'realtime:bin-room', 'moved', ''].map((s) => Buffer.from(s));
      return Buffer.concat([Buffer.from([3, ...parts.map((p) => p.length), encoding]), ...parts, payload]);
    };
    a.ws.send(frame(1, Buffer.from(JSON.stringify({ lot: 9 }))));
    a.ws.send(frame(0, Buffer.from([1, 2, 3])));
    await until(() => b.got.length >= 3, 'both broadcasts');
    expect(b.got).toContainEqual([
      '1',
      null,
      'realtime:bin-room',
      'broadcast',
      { type: 'broadcast', event: 'moved', payload: { lot: 9 } },
    ]);
    const bytes = b.got.find((f) => Buffer.isBuffer(f)) as Buffer;
    const topic = 'realtime:bin-room';
    expect([...bytes.subarray(0, 5)]).toEqual([4, topic.length, 'moved'.length, 0, 0]);
    expect([...bytes.subarray(5 + topic.length + 'moved'.length)]).toEqual([1, 2, 3]);
  });

  it('a malformed frame and an event on an unjoined topic get error replies, and the connection stays', async () => {
    const { ws, got } = await connect('2.0.0');
    ws.send('not json');
    ws.send(
      JSON.stringify(['1', '7', 'realtime:nowhere', 'broadcast', { type: 'broadcast', event: 'x', payload: {} }]),
    );
    await until(() => got.length >= 2, 'two error replies');
    expect(got[0]).toEqual([
      null,
      null,
      'phoenix',
      'phx_reply',
      { status: 'error', response: { reason: 'Malformed message: frame is not JSON' } },
    ]);
    expect(got[1]).toEqual([
      '1',
      '7',
      'realtime:nowhere',
      'phx_reply',
      { status: 'error', response: { reason: 'unmatched topic: join the channel first' } },
    ]);
    expect(ws.readyState).toBe(WebSocket.OPEN);
  });
});

describe('join refusals', () => {
  it('an invalid or expired access token is refused with the reason', async () => {
    const { ws, got } = await connect('2.0.0');
    const [, , , , payload] = join('t1', 'bad') as [string, string, string, string, Record<string, unknown>];
    ws.send(JSON.stringify(['bad', 'bad', 'realtime:t1', 'phx_join', { ...payload, access_token: 'not-a-jwt' }]));
    const expired = await new SignJWT({ role: 'authenticated' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(user.id)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(new TextEncoder().encode(server.jwtSecret));
    ws.send(JSON.stringify(['old', 'old', 'realtime:t2', 'phx_join', { config: {}, access_token: expired }]));
    expect((await replyTo(got, 'bad')).response.reason).toMatch(/^Invalid token: /);
    expect(await replyTo(got, 'old')).toEqual({ status: 'error', response: { reason: 'Token has expired' } });
  });
});

describe('limits', () => {
  it('channels per connection', async () => {
    const { ws, got } = await connect('2.0.0');
    for (const [i, topic] of ['c1', 'c2', 'c3'].entries()) ws.send(JSON.stringify(join(topic, String(i + 1))));
    expect((await replyTo(got, '2')).status).toBe('ok');
    expect(await replyTo(got, '3')).toEqual({
      status: 'error',
      response: { reason: 'Too many channels: at most 2 per connection' },
    });
  });

  it('events per second per connection', async () => {
    const { ws, got } = await connect('2.0.0');
    ws.send(JSON.stringify(join('busy', 'j')));
    await replyTo(got, 'j');
    for (let i = 0; i < 8; i++)
      ws.send(
        JSON.stringify(['j', `b${i}`, 'realtime:busy', 'broadcast', { type: 'broadcast', event: 'e', payload: {} }]),
      );
    const last = await replyTo(got, 'b7');
    expect(last).toEqual({
      status: 'error',
      response: { reason: 'Too many messages: at most 5 per second per connection' },
    });
  });

  it('payload size', async () => {
    const { ws, got } = await connect('2.0.0');
    ws.send(JSON.stringify(join('big', 'j', { broadcast: { ack: true } })));
    await replyTo(got, 'j');
    ws.send(
      JSON.stringify([
        'j',
        'p',
        'realtime:big',
        'broadcast',
        { type: 'broadcast', event: 'e', payload: { x: 'y'.repeat(2000) } },
      ]),
    );
    expect(await replyTo(got, 'p')).toEqual({
      status: 'error',
      response: { reason: 'Payload too large: at most 1024 bytes' },
    });
  });

  it('connections per client address', async () => {
    await Promise.all([connect('2.0.0'), connect('2.0.0'), connect('2.0.0')]);
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(
        `${server.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${server.anonKey}&vsn=2.0.0`,
      );
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('error', () => {});
    });
    expect(status).toBe(429);
  });
});
