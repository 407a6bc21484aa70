import { describe, expect, it } from 'vitest';
import { cors, presetHeaders } from './cors.js';
import { readConfig } from './postgrest-config.js';

const headers = (h: Record<string, string>) => (name: string) => h[name];

describe('cors (suite: CorsSpec)', () => {
  it('answers a preflight from any origin when no origins are set', () => {
    const r = cors(
      'OPTIONS',
      headers({
        origin: 'http://example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'Foo,Bar',
      }),
      [],
    );
    expect(r).toEqual({
      kind: 'preflight',
      headers: {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, POST, PATCH, PUT, DELETE, OPTIONS, HEAD',
        'access-control-allow-headers': 'Authorization, Foo, Bar, Accept, Accept-Language, Content-Language',
        'access-control-max-age': '86400',
      },
    });
  });

  it('adds the origin and the headers a script may read to other requests', () => {
    expect(cors('GET', headers({ origin: 'http://example.com' }), [])).toEqual({
      kind: 'pass',
      headers: {
        'access-control-allow-origin': '*',
        'access-control-expose-headers':
          'Content-Encoding, Content-Location, Content-Range, Content-Type, Date, Location, Server, Transfer-Encoding, Range-Unit',
      },
    });
    expect(cors('GET', headers({}), [])).toEqual({ kind: 'pass', headers: {} });
  });

  it('echoes an allowed origin with credentials, and adds nothing for another origin', () => {
    const allowed = ['http://example.com', 'http://example2.com'];
    const pre = cors(
      'OPTIONS',
      headers({ origin: 'http://example.com', 'access-control-request-method': 'POST' }),
      allowed,
    );
    expect(pre).toMatchObject({
      kind: 'preflight',
      headers: { 'access-control-allow-origin': 'http://example.com', 'access-control-allow-credentials': 'true' },
    });
    expect(cors('GET', headers({ origin: 'http://example2.com' }), allowed).headers).toMatchObject({
      'access-control-allow-origin': 'http://example2.com',
    });
    expect(cors('GET', headers({ origin: 'http://invalid.com' }), allowed)).toEqual({ kind: 'pass', headers: {} });
  });

  it('leaves an OPTIONS request that is no preflight to the engine', () => {
    expect(cors('OPTIONS', headers({ origin: 'http://example.com' }), []).kind).toBe('pass');
    const unknownMethod = cors(
      'OPTIONS',
      headers({ origin: 'http://example.com', 'access-control-request-method': 'TRACE' }),
      [],
    );
    expect(unknownMethod.kind).toBe('pass');
    const badHeader = cors(
      'OPTIONS',
      headers({
        origin: 'http://example.com',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'a b',
      }),
      [],
    );
    expect(badHeader.kind).toBe('pass');
  });

  it('reads server-cors-allowed-origins as a list', () => {
    const { config, notes } = readConfig({ PGRST_SERVER_CORS_ALLOWED_ORIGINS: 'http://a.test, http://b.test' }, null);
    expect(config.serverCorsAllowedOrigins).toEqual(['http://a.test', 'http://b.test']);
    expect(notes.unsupported).toEqual([]);
    expect(readConfig({}, null).config.serverCorsAllowedOrigins).toEqual([]);
  });
});

describe('presetHeaders: what the command adds to answers (suite: CorsSpec, HttpHeaderSpec, ObservabilitySpec)', () => {
  const settings = { serverCorsAllowedOrigins: [], serverTraceHeader: null };
  it('says what answers vary by, and lets any origin read an answer to OPTIONS', () => {
    expect(presetHeaders('GET', headers({}), settings)).toEqual({
      preflight: false,
      headers: { vary: 'Accept, Prefer, Range' },
    });
    expect(presetHeaders('OPTIONS', headers({}), settings).headers['access-control-allow-origin']).toBe('*');
  });
  it('echoes the trace header, empty when the request has none', () => {
    const traced = { ...settings, serverTraceHeader: 'X-Request-Id' };
    expect(presetHeaders('HEAD', headers({ 'x-request-id': '1' }), traced).headers['x-request-id']).toBe('1');
    expect(presetHeaders('HEAD', headers({}), traced).headers['x-request-id']).toBe('');
  });
  it('answers a preflight with its CORS headers alone', () => {
    const r = presetHeaders(
      'OPTIONS',
      headers({ origin: 'http://a.test', 'access-control-request-method': 'GET' }),
      settings,
    );
    expect(r.preflight).toBe(true);
    expect(r.headers.vary).toBeUndefined();
  });
  it('reads server-trace-header', () => {
    expect(readConfig({ PGRST_SERVER_TRACE_HEADER: 'X-Request-Id' }, null).config.serverTraceHeader).toBe(
      'X-Request-Id',
    );
  });
});
