// Fakes of Vonage's SMS API (POST /sms/json), Messagebird's Messages API (POST /messages) and Textlocal's send API
// (POST /send) on loopback, for the phone tests: each records the form it was sent (and the Authorization header)
// and answers as the provider does for a sent message, or with the provider's refusal, or as a failing gateway in
// front of it, on demand.
import { startLoopbackServer } from './loopback.js';

export interface SmsCall {
  authorization?: string;
  form: Record<string, string>;
}

export interface FakeSmsProvider {
  url: string;
  calls: SmsCall[];
  /** `ok`: the message is sent; `refused`: the provider's error answer; `broken`: a 502 page, not JSON. */
  mode: 'ok' | 'refused' | 'broken';
  /** The code in the newest message to this number (E.164 digits, without "+"). */
  codeFor(phone: string): string | undefined;
  close(): Promise<void>;
}

type Answer = { status: number; body: unknown };

async function startFake(
  path: string,
  recipientField: string,
  textField: string,
  answer: (fake: FakeSmsProvider, call: SmsCall) => Answer,
): Promise<FakeSmsProvider> {
  const fake: FakeSmsProvider = {
    url: '',
    calls: [],
    mode: 'ok',
    codeFor(phone) {
      return fake.calls.findLast((c) => c.form[recipientField] === phone)?.form[textField]?.match(/\d{6}/)?.[0];
    },
    close: async () => {},
  };
  const loopback = await startLoopbackServer((req, raw, res) => {
    if (req.method !== 'POST' || req.url !== path) return void res.writeHead(404).end();
    const call = { authorization: req.headers.authorization, form: Object.fromEntries(new URLSearchParams(raw)) };
    fake.calls.push(call);
    if (fake.mode === 'broken')
      return void res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad Gateway</h1>');
    const { status, body } = answer(fake, call);
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  fake.url = loopback.url;
  fake.close = loopback.close;
  return fake;
}

/** Vonage answers 200 either way; a message's status "0" means sent, any other carries error-text. */
export function startFakeVonage(): Promise<FakeSmsProvider> {
  return startFake('/sms/json', 'to', 'text', (fake, call) => {
    const id = `vonage-${fake.calls.length}`;
    const message =
      fake.mode === 'ok'
        ? { to: call.form.to, 'message-id': id, status: '0', 'remaining-balance': '3.14' }
        : { status: '6', 'error-text': 'Unroutable message - rejected' };
    return { status: 200, body: { 'message-count': '1', messages: [message] } };
  });
}

/** Messagebird answers 201 with the message, or 422 with its errors. */
export function startFakeMessagebird(): Promise<FakeSmsProvider> {
  return startFake('/messages', 'recipients', 'body', (fake, call) => {
    if (fake.mode === 'refused') {
      return {
        status: 422,
        body: { errors: [{ code: 9, description: 'no (correct) recipients found', parameter: 'recipients' }] },
      };
    }
    const recipient = { recipient: Number(call.form.recipients), status: 'sent' };
    const recipients = { totalCount: 1, totalSentCount: 1, items: [recipient] };
    return { status: 201, body: { id: `mb${String(fake.calls.length).padStart(30, '0')}`, recipients } };
  });
}

/** Textlocal answers 200 either way; its status says whether the message went, its errors why not. */
export function startFakeTextlocal(): Promise<FakeSmsProvider> {
  return startFake('/send', 'numbers', 'message', (fake) => {
    if (fake.mode === 'refused') {
      return {
        status: 200,
        body: { status: 'failure', errors: [{ code: 51, message: 'No valid numbers specified' }] },
      };
    }
    return { status: 200, body: { status: 'success', messages: [{ id: 1000 + fake.calls.length }], num_messages: 1 } };
  });
}
