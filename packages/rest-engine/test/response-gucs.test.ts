// SQL shaping its own answer, as in PostgREST: response.status and response.headers set by a function override the
// engine's status and headers (read in the same statement, no round trip more); malformed settings are PGRST111 and
// PGRST112; RAISE SQLSTATE 'PGRST' answers with the status, headers and body its DETAIL and MESSAGE give, and a
// MESSAGE that is not such JSON is PGRST121.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, PGRST_FIXTURE, setup } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await setup({}, 2, PGRST_FIXTURE);
});
afterAll(async () => {
  await h?.close();
});

describe('response.status and response.headers', () => {
  it('override the status and add the headers; a name set twice keeps both values', async () => {
    const r = await h.req('POST', '/rpc/teapot', { body: {} });
    expect(r).toMatchObject({ status: 418, json: { short: 'and stout' } });
    expect(r.headers).toMatchObject({ 'x-brew': 'green', 'set-cookie': 'a=1, b=2' });
  });
  it('a status that is not a number is PGRST112', async () => {
    expect(await h.req('POST', '/rpc/bad_status', { body: {} })).toMatchObject({
      status: 500,
      json: { code: 'PGRST112', message: 'response.status guc must be a valid status code' },
    });
  });
  it('headers that are not an array of one-key objects are PGRST111', async () => {
    expect(await h.req('POST', '/rpc/bad_headers', { body: {} })).toMatchObject({
      status: 500,
      json: { code: 'PGRST111' },
    });
  });
  it('a header name or value HTTP does not allow, or a status outside 100-599, is refused, never sent', async () => {
    const cases: [string, string, string][] = [
      ['200', '[{"X-Ok": "fine\\r\\nX-Injected: 1"}]', 'PGRST111'],
      ['200', '[{"X-Ok\\r\\nX-Injected": "1"}]', 'PGRST111'],
      ['200', '[{"bad name": "1"}]', 'PGRST111'],
      ['099', '[]', 'PGRST112'],
      ['600', '[]', 'PGRST112'],
    ];
    for (const [status, headers, code] of cases) {
      const r = await h.req('POST', '/rpc/set_answer', { body: { status, headers } });
      expect(r, `${status} ${headers}`).toMatchObject({ status: 500, json: { code } });
      expect(r.headers['x-injected']).toBeUndefined();
    }
    // The engine still answers after them.
    expect((await h.req('GET', '/slots?id=eq.1')).status).toBe(200);
  });
  it('untouched settings leave the answer as it was', async () => {
    const r = await h.req('GET', '/slots?id=eq.1');
    expect(r.status).toBe(200);
    expect(r.headers['set-cookie']).toBeUndefined();
  });
});

describe("RAISE SQLSTATE 'PGRST'", () => {
  it('answers with its status, headers and body', async () => {
    const r = await h.req('POST', '/rpc/pay_first', { body: {} });
    expect(r).toMatchObject({
      status: 402,
      headers: { 'x-powered-by': 'Coins' },
      json: { code: 'P0402', message: 'Payment Required', details: 'Quota exceeded', hint: 'Upgrade' },
    });
  });
  it('a DETAIL with a status outside 100-599 or a header HTTP does not allow is PGRST121, never sent', async () => {
    const message = '{"code": "P0001", "message": "no"}';
    for (const detail of [
      '{"status": 42, "headers": {}}',
      '{"status": 400, "headers": {"X-Ok": "a\\r\\nX-Injected: 1"}}',
      '{"status": 400, "headers": {"bad name": "1"}}',
    ]) {
      const r = await h.req('POST', '/rpc/raise_answer', { body: { message, detail } });
      expect(r, detail).toMatchObject({ status: 500, json: { code: 'PGRST121' } });
      expect(r.headers['x-injected']).toBeUndefined();
    }
  });
  it('a MESSAGE that is not JSON is PGRST121', async () => {
    expect(await h.req('POST', '/rpc/raise_unparsable', { body: {} })).toMatchObject({
      status: 500,
      json: {
        code: 'PGRST121',
        message: `Could not parse JSON in the "RAISE SQLSTATE 'PGRST'" error`,
        details: "Invalid JSON value for MESSAGE: 'not json'",
      },
    });
  });
});
