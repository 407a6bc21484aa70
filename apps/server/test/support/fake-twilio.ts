// A fake of Twilio's Messages API on loopback, for the phone tests: it records each
// POST /2010-04-01/Accounts/{sid}/Messages.json (Basic auth, form body) and answers as Twilio does (201 with the
// message's sid and status), or with Twilio's error body, or with a message that failed, on demand.
import { startLoopbackServer } from './loopback.js';

export interface TwilioCall {
  accountSid: string;
  authorization?: string;
  form: Record<string, string>;
}

export interface FakeTwilio {
  url: string;
  calls: TwilioCall[];
  /** `ok`: 201 queued; `error`: 400 with Twilio's error body; `failed`: 201 whose message status is failed. */
  mode: 'ok' | 'error' | 'failed';
  /** The code in the newest message to this number (E.164 digits, without "+"). */
  codeFor(phone: string): string | undefined;
  close(): Promise<void>;
}

export async function startFakeTwilio(): Promise<FakeTwilio> {
  const fake: FakeTwilio = {
    url: '',
    calls: [],
    mode: 'ok',
    codeFor(phone) {
      const call = fake.calls.findLast((c) => c.form.To?.replace(/^whatsapp:/, '') === `+${phone}`);
      return call?.form.Body?.match(/\d{6}/)?.[0];
    },
    close: async () => {},
  };
  const loopback = await startLoopbackServer((req, raw, res) => {
    const match = req.method === 'POST' ? req.url?.match(/^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/) : null;
    if (!match) return void res.writeHead(404).end();
    const form = Object.fromEntries(new URLSearchParams(raw));
    fake.calls.push({ accountSid: decodeURIComponent(match[1]!), authorization: req.headers.authorization, form });
    res.setHeader('content-type', 'application/json');
    const sid = `SM${String(fake.calls.length).padStart(32, '0')}`;
    if (fake.mode === 'error') {
      res.writeHead(400).end(
        JSON.stringify({
          code: 21211,
          message: "The 'To' number is not a valid phone number.",
          more_info: 'https://www.twilio.com/docs/errors/21211',
          status: 400,
        }),
      );
      return;
    }
    const status = fake.mode === 'failed' ? 'failed' : 'queued';
    const failure =
      fake.mode === 'failed' ? { error_code: 30003, error_message: 'Unreachable destination handset' } : {};
    res.writeHead(201).end(JSON.stringify({ sid, status, to: form.To, from: form.From, body: form.Body, ...failure }));
  });
  fake.url = loopback.url;
  fake.close = loopback.close;
  return fake;
}
