// HTTPS only, over real sockets: supabase-js over TLS (auth, rest, storage, functions) with the test CA trusted, HTTP/2
// and HTTP/1.1 on one port, the certificate reloaded on SIGHUP while a connection stays open, HSTS; plain requests
// refused with 426 on every family but /health, X-Forwarded-Proto believed only from a trusted proxy; and the start-up
// refusal of plain HTTP on a public interface.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as http2Connect } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { createClient } from '@supabase/supabase-js';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { type Config, loadConfig, migrationSets, type RunningServer, startServer } from '../src/index.js';
import { createLocalCertificates, type LocalCertificates } from '@auction-ops/server-config/local-certificates';
import { InsecureTransportError, transportOf } from '../src/tls/transport-policy.js';
import { NoWebSocket } from './support/test-server.js';

const SECRET = 'https-secret-'.padEnd(40, 'h');
let db: TestDatabase;
let dir: string;
let certs: LocalCertificates;
const servers: RunningServer[] = [];

const config = (extra: Record<string, string>): Config =>
  loadConfig({
    PORT: '0',
    DATABASE_URL: db.ownerUrl,
    DATA_DIR: mkdtempSync(join(dir, 'data-')),
    LOG_LEVEL: 'silent',
    JWT_SECRET: SECRET,
    WORKERS_ENABLED: 'false',
    RATE_LIMITS_ENABLED: 'false',
    ...extra,
  });
const boot = async (extra: Record<string, string>) => {
  const server = await startServer(config(extra));
  servers.push(server);
  return server;
};

beforeAll(async () => {
  db = await createTestDatabase(migrationSets);
  dir = mkdtempSync(join(tmpdir(), 'https-'));
  certs = createLocalCertificates();
  writeFileSync(join(dir, 'cert.pem'), certs.cert);
  writeFileSync(join(dir, 'key.pem'), certs.key);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('HTTPS served by the process', () => {
  let server: RunningServer;
  let agent: Agent;
  const trustedFetch = ((input: string | URL, init?: RequestInit) =>
    undiciFetch(input as never, { ...(init as object), dispatcher: agent })) as typeof fetch;

  beforeAll(async () => {
    server = await boot({ TLS_CERT_FILE: join(dir, 'cert.pem'), TLS_KEY_FILE: join(dir, 'key.pem') });
    agent = new Agent({ connect: { ca: certs.caCert }, allowH2: true });
  });
  afterAll(() => agent?.close());

  it('serves https:// with PUBLIC_URL following it', () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(server.ctx.config.PUBLIC_URL).toBe(server.url);
  });

  it('supabase-js over HTTPS: auth, rest, storage and functions', async () => {
    const options = {
      auth: { persistSession: false, autoRefreshToken: false },
      realtime: { transport: NoWebSocket as never },
      global: { fetch: trustedFetch },
    };
    const user = createClient(server.url, server.ctx.anonKey, options);
    const signUp = await user.auth.signUp({ email: 'tls-user@https.test', password: 'correct-horse-battery-9' });
    expect(signUp.error).toBeNull();
    const signIn = await user.auth.signInWithPassword({
      email: 'tls-user@https.test',
      password: 'correct-horse-battery-9',
    });
    expect(signIn.error).toBeNull();
    expect(signIn.data.user?.email).toBe('tls-user@https.test');

    const created = await user.from('auctions').insert({ name: 'TLS Auction', slug: 'tls-auction' }).select().single();
    expect(created.error).toBeNull();
    const read = await user.from('auctions').select('slug');
    expect(read.data).toEqual([{ slug: 'tls-auction' }]);

    const admin = createClient(server.url, server.ctx.serviceRoleKey, options);
    expect((await admin.storage.createBucket('tls-bucket')).error).toBeNull();
    const bytes = new TextEncoder().encode('over TLS');
    const up = await admin.storage.from('tls-bucket').upload('a/b.txt', bytes, { contentType: 'text/plain' });
    expect(up.error).toBeNull();
    const down = await admin.storage.from('tls-bucket').download('a/b.txt');
    expect(await down.data?.text()).toBe('over TLS');

    const fn = await admin.functions.invoke('check-pending-submissions', { body: {} });
    expect(fn.error).toBeNull();
    expect(fn.data).toMatchObject({ overdue_locations: 0, notified_users: 0, notifications_sent: 0 });
  });

  it('realtime over wss://: the upgrade passes the TLS port and a channel joins', async () => {
    const ws = new WebSocket(
      `${server.url.replace('https', 'wss')}/realtime/v1/websocket?apikey=${server.ctx.anonKey}&vsn=2.0.0`,
      { ca: certs.caCert },
    );
    const reply = await new Promise<unknown>((resolve, reject) => {
      ws.on('error', reject);
      ws.on('open', () => ws.send(JSON.stringify([null, 'h', 'phoenix', 'heartbeat', {}])));
      ws.on('message', (data) => resolve(JSON.parse(String(data))));
    });
    ws.close();
    expect(reply).toEqual([null, 'h', 'phoenix', 'phx_reply', { status: 'ok', response: {} }]);
  });

  it('speaks HTTP/2 and HTTP/1.1 on the same port, with HSTS on every answer', async () => {
    const session = http2Connect(server.url, { ca: certs.caCert });
    try {
      const { status, hsts, alpn } = await new Promise<{ status: number; hsts: unknown; alpn: unknown }>(
        (resolve, reject) => {
          const req = session.request({ ':path': '/health' });
          req.on('response', (headers) => {
            resolve({
              status: headers[':status'] as number,
              hsts: headers['strict-transport-security'],
              alpn: session.alpnProtocol,
            });
            req.resume();
          });
          req.on('error', reject);
          req.end();
        },
      );
      expect([status, hsts, alpn]).toEqual([200, 'max-age=31536000', 'h2']);
    } finally {
      session.close();
    }
    const http1 = await undiciFetch(`${server.url}/rest/v1/auctions`, {
      headers: { apikey: server.ctx.anonKey },
      dispatcher: new Agent({ connect: { ca: certs.caCert } }),
    });
    expect(http1.status).toBe(401);
    expect(http1.headers.get('strict-transport-security')).toBe('max-age=31536000');
  });

  it('answers plain HTTP on the TLS port with 426 on every family, /health excepted', async () => {
    const plainUrl = server.url.replace('https://', 'http://');
    for (const path of ['/auth/v1/settings', '/rest/v1/auctions', '/storage/v1/bucket', '/functions/v1/hello']) {
      const res = await fetch(`${plainUrl}${path}`, { headers: { apikey: server.ctx.anonKey } });
      expect(res.status).toBe(426);
      expect(res.headers.get('strict-transport-security')).toBeNull();
      expect(await res.json()).toEqual({ message: 'HTTPS required' });
    }
    expect((await fetch(`${plainUrl}/health`)).status).toBe(200);
  });

  it('reloads the certificate on SIGHUP; an open HTTP/2 connection keeps working', async () => {
    const serialOf = () =>
      new Promise<string>((resolve, reject) => {
        const port = Number(new URL(server.url).port);
        const socket = tlsConnect({ host: '127.0.0.1', port, ca: certs.caCert, servername: 'localhost' }, () => {
          resolve(socket.getPeerCertificate().serialNumber);
          socket.end();
        });
        socket.on('error', reject);
      });
    const request = (session: ReturnType<typeof http2Connect>) =>
      new Promise<number>((resolve, reject) => {
        const req = session.request({ ':path': '/health' });
        req.on('response', (h) => {
          resolve(h[':status'] as number);
          req.resume();
        });
        req.on('error', reject);
        req.end();
      });
    const before = await serialOf();
    const open = http2Connect(server.url, { ca: certs.caCert });
    try {
      expect(await request(open)).toBe(200);
      // A renewed certificate from the same authority, written over the files, then SIGHUP.
      const renewed = createLocalCertificates({ ca: { cert: certs.caCert, key: certs.caKey } });
      writeFileSync(join(dir, 'cert.pem'), renewed.cert);
      writeFileSync(join(dir, 'key.pem'), renewed.key);
      process.emit('SIGHUP', 'SIGHUP');
      const after = await serialOf();
      expect(after).not.toBe(before);
      expect(after).toBe(new (await import('node:crypto')).X509Certificate(renewed.cert).serialNumber);
      expect(await request(open)).toBe(200);
      expect(open.closed || open.destroyed).toBe(false);
    } finally {
      open.close();
    }
  });
});

describe('plain HTTP', () => {
  const families = ['/auth/v1/settings', '/rest/v1/auctions', '/storage/v1/bucket', '/functions/v1/hello'];
  let untrusted: RunningServer;
  let proxied: RunningServer;
  beforeAll(async () => {
    // An https:// PUBLIC_URL: clients come through TLS somewhere. Loopback is not a trusted proxy for the first.
    untrusted = await boot({ PUBLIC_URL: 'https://api.example.com', TRUSTED_PROXY_CIDRS: '10.0.0.0/8' });
    proxied = await boot({ PUBLIC_URL: 'https://api.example.com', TRUSTED_PROXY_CIDRS: '127.0.0.1/32' });
  });
  const get = (server: RunningServer, path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { headers: { apikey: server.ctx.anonKey, ...headers } });

  it('is refused with 426 on every family, before the API key is looked at; /health still answers', async () => {
    for (const path of families) {
      for (const headers of [{}, { apikey: 'not-a-key' }] as Record<string, string>[]) {
        const res = await fetch(`${untrusted.url}${path}`, { headers });
        expect(res.status).toBe(426);
        expect(res.headers.get('upgrade')).toBe('TLS/1.2, HTTP/1.1');
        expect(await res.json()).toEqual({ message: 'HTTPS required' });
      }
    }
    const health = await get(untrusted, '/health');
    expect(health.status).toBe(200);
    expect(health.headers.get('strict-transport-security')).toBeNull();
  });

  it('a forged X-Forwarded-Proto from an address that is not a trusted proxy is refused', async () => {
    for (const path of families) {
      const res = await get(untrusted, path, { 'x-forwarded-proto': 'https' });
      expect(res.status).toBe(426);
    }
  });

  it('behind a trusted proxy: X-Forwarded-Proto https passes (with HSTS); http or none is refused', async () => {
    const ok = await get(proxied, '/auth/v1/settings', { 'x-forwarded-proto': 'https' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('strict-transport-security')).toBe('max-age=31536000');
    expect((await get(proxied, '/rest/v1/auctions', { 'x-forwarded-proto': 'https' })).status).toBe(401);
    expect((await get(proxied, '/storage/v1/bucket', { 'x-forwarded-proto': 'https' })).status).toBe(200);
    for (const headers of [{}, { 'x-forwarded-proto': 'http' }, { 'x-forwarded-proto': 'http, https' }] as Record<
      string,
      string
    >[]) {
      for (const path of families) expect((await get(proxied, path, headers)).status).toBe(426);
    }
  });

  it('local development: loopback with an http:// PUBLIC_URL accepts plain HTTP', async () => {
    const local = await boot({});
    expect(local.ctx.config.PUBLIC_URL).toMatch(/^http:\/\/127\.0\.0\.1:/);
    expect((await get(local, '/auth/v1/settings')).status).toBe(200);
  });
});

describe('start-up', () => {
  it('refuses plain HTTP on a non-loopback HOST without a trusted proxy, saying why', async () => {
    const error = await startServer(config({ HOST: '0.0.0.0' })).catch((e: Error) => e);
    expect(error).toBeInstanceOf(InsecureTransportError);
    expect((error as Error).message).toBe(
      'refusing to start: HOST=0.0.0.0 is not loopback and the server would speak plain HTTP; set TLS_CERT_FILE and ' +
        'TLS_KEY_FILE, or TRUSTED_PROXY_CIDRS for a TLS-terminating proxy, or ALLOW_INSECURE_HTTP=true',
    );
    const half = await startServer(config({ TLS_CERT_FILE: join(dir, 'cert.pem') })).catch((e: Error) => e);
    expect((half as Error).message).toBe(
      'refusing to start: TLS_KEY_FILE is missing (HTTPS needs both the certificate and its key)',
    );
  });

  it('decides the transport from HOST, PUBLIC_URL, the TLS files, trusted proxies and ALLOW_INSECURE_HTTP', () => {
    const kind = (extra: Record<string, string>) => transportOf(config(extra)).kind;
    expect(kind({})).toBe('local');
    expect(kind({ HOST: 'localhost' })).toBe('local');
    expect(kind({ HOST: '::1' })).toBe('local');
    expect(kind({ HOST: '0.0.0.0', ALLOW_INSECURE_HTTP: 'true' })).toBe('insecure');
    expect(kind({ HOST: '0.0.0.0', TRUSTED_PROXY_CIDRS: '10.0.0.0/8' })).toBe('proxied');
    expect(kind({ PUBLIC_URL: 'https://api.example.com' })).toBe('proxied');
    expect(kind({ HOST: '0.0.0.0', TLS_CERT_FILE: 'c.pem', TLS_KEY_FILE: 'k.pem' })).toBe('tls');
    expect(() => kind({ HOST: '192.168.1.10' })).toThrow(InsecureTransportError);
  });
});
