// A fake of Resend's e-mail API on loopback, for the tests of the auth and functions mail: it records each
// POST /emails and answers as Resend does, or fails on demand.
import { startLoopbackServer } from './loopback.js';

export interface ResendCall {
  authorization?: string;
  body: { from: string; to: string[]; subject: string; text: string; html: string };
}

export interface FakeResend {
  url: string;
  calls: ResendCall[];
  /** Answer every request with this status (an error body) until set back to 200. */
  status: number;
  close(): Promise<void>;
}

/** A fake of Resend's POST /emails on loopback. */
export async function startFakeResend(): Promise<FakeResend> {
  const fake: FakeResend = { url: '', calls: [], status: 200, close: async () => {} };
  const loopback = await startLoopbackServer((req, raw, res) => {
    if (req.method !== 'POST' || req.url !== '/emails') return void res.writeHead(404).end();
    fake.calls.push({ authorization: req.headers.authorization, body: JSON.parse(raw) });
    if (fake.status !== 200) {
      res.writeHead(fake.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ statusCode: fake.status, name: 'application_error', message: 'provider is down' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `re_${fake.calls.length}` }));
  });
  fake.url = loopback.url;
  fake.close = loopback.close;
  return fake;
}
