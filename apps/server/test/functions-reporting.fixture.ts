// Shared arrangements of the reporting tests: a CSV generator with known good and bad rows, an SSE reader for
// import-csv's stream, and a fake OpenAI-compatible chat-completions server on loopback.
import { startLoopbackServer } from './support/loopback.js';

export interface SseEvent {
  id: number;
  event: string;
  data: Record<string, unknown>;
}

/** Reads a text/event-stream body to its end. */
export async function readSse(body: ReadableStream<Uint8Array> | null): Promise<SseEvent[]> {
  if (!body) throw new Error('no stream');
  const text = await new Response(body).text();
  return text
    .split('\n\n')
    .filter((block) => block.includes('event:'))
    .map((block) => {
      const field = (name: string) =>
        block
          .split('\n')
          .find((l) => l.startsWith(`${name}: `))
          ?.slice(name.length + 2) ?? '';
      return { id: Number(field('id')), event: field('event'), data: JSON.parse(field('data')) };
    });
}

export interface GeneratedCsv {
  text: string;
  good: number;
  bad: number[];
  /** Sum of the price column over good rows, to check what was loaded. */
  priceTotal: number;
}

/**
 * `rows` data rows: an integer, a price with decimals (empty now and then), a yes/no flag, a make with quoted
 * commas, a day-first and a month-first date, a timestamp. Every 997th row past the sample has a bad price, every
 * 1499th the wrong number of fields.
 */
export function generateCsv(rows: number, eol = '\r\n'): GeneratedCsv {
  const lines = ['Lot Number,Price,Sold,Make,Sale Date,Pickup Date,Registered At'];
  const bad: number[] = [];
  let priceTotal = 0;
  for (let i = 1; i <= rows; i++) {
    const day = (i % 28) + 1;
    const month = (i % 12) + 1;
    const dmy = `${String(day).padStart(2, '0')}/${String(month).padStart(2, '0')}/2024`;
    const mdy = `${String(month).padStart(2, '0')}/${String(day).padStart(2, '0')}/2025`;
    const priced = i % 10 !== 0;
    let price = priced ? `${(i % 5000) + 0.25}` : '';
    const makes = ['"Ford, Inc"', 'Toyota', '"Chevy ""Classic"""', 'Kia'];
    const at = `2024-03-${String(day).padStart(2, '0')}T10:15:00Z`;
    let line = `${i},${price},${i % 2 ? 'yes' : 'no'},${makes[i % 4]},${dmy},${mdy},${at}`;
    if (i > 2500 && i % 997 === 0) {
      price = 'n/a';
      line = line.replace(/^(\d+),[^,]*,/, `$1,${price},`);
      bad.push(i);
    } else if (i > 2500 && i % 1499 === 0) {
      line = `${i},1.5,yes`;
      bad.push(i);
    } else if (priced) priceTotal += (i % 5000) + 0.25;
    lines.push(line);
  }
  return { text: lines.join(eol) + eol, good: rows - bad.length, bad, priceTotal };
}

export interface FakeLlm {
  url: string;
  /** Requests received, newest last. */
  requests: Array<{ messages: Array<{ role: string; content: string }>; authorization?: string }>;
  /** The next answers, in order: `content` to send, or a failure to act out. */
  script: Array<{ content: string } | { status: number } | { garbage: true } | { hang: true } | { refusal: string }>;
  close(): Promise<void>;
}

export async function startFakeLlm(): Promise<FakeLlm> {
  const fake: FakeLlm = { url: '', requests: [], script: [], close: async () => {} };
  const loopback = await startLoopbackServer((req, raw, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return void res.writeHead(404).end();
    const body = JSON.parse(raw);
    fake.requests.push({ messages: body.messages, authorization: req.headers.authorization });
    const next = fake.script.shift() ?? { content: sqlAnswer('select count(*) as n from dataset') };
    if ('hang' in next) return; // never answers: the client's timeout must fire
    if ('status' in next) return void res.writeHead(next.status).end('upstream failure');
    if ('garbage' in next) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices": [');
    const message =
      'refusal' in next
        ? { role: 'assistant', content: null, refusal: next.refusal }
        : { role: 'assistant', content: next.content };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'chatcmpl-test',
        object: 'chat.completion',
        choices: [{ index: 0, message, finish_reason: 'stop' }],
      }),
    );
  });
  fake.url = `${loopback.url}/v1`;
  fake.close = loopback.close;
  return fake;
}

export function sqlAnswer(sql: string, visualization = 'bar'): string {
  return JSON.stringify({ sql, explanation: 'counts the rows', visualization });
}
