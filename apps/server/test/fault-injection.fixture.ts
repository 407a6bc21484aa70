// What the fault-injection suite needs besides a server process: requests written byte by byte on a raw socket
// (node:net), so a test can lie in Content-Length, cut a body off, drip it slowly or send broken multipart, and
// read whatever comes back before the connection closes.
import { connect } from 'node:net';

export interface RawAnswer {
  /** 0 when the server closed the connection without an answer. */
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawRequest {
  method?: string;
  path: string;
  headers: Record<string, string>;
  /** Written in order, `pauseMs` apart. */
  chunks?: Array<string | Buffer>;
  pauseMs?: number;
  /** Send Transfer-Encoding: chunked (no Content-Length unless given in headers). */
  chunked?: boolean;
  /** Close the connection after the last chunk instead of waiting for the answer. */
  cutOff?: boolean;
  /** Give up waiting for the answer after this long (the socket is then destroyed). */
  timeoutMs?: number;
}

/** Sends the request on a new connection and reads until the server closes it (Connection: close). */
export function rawRequest(port: number, r: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), r.timeoutMs ?? 15_000);
    socket.on('data', (d) => received.push(d));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseAnswer(Buffer.concat(received)));
    });
    const head = [
      `${r.method ?? 'POST'} ${r.path} HTTP/1.1`,
      'host: 127.0.0.1',
      'connection: close',
      ...(r.chunked ? ['transfer-encoding: chunked'] : []),
      ...Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`),
    ];
    // Each write waits until it is handed to the kernel, so a cut-off comes after the bytes before it.
    const write = (bytes: Buffer | string) => new Promise((done) => socket.write(bytes, done));
    socket.once('connect', async () => {
      await write(`${head.join('\r\n')}\r\n\r\n`);
      for (const chunk of r.chunks ?? []) {
        if (socket.destroyed) return;
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        await write(r.chunked ? Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, CRLF]) : bytes);
        if (r.pauseMs) await new Promise((done) => setTimeout(done, r.pauseMs));
      }
      if (r.cutOff) setTimeout(() => socket.destroy(), 50);
      else if (r.chunked && !socket.destroyed) socket.write('0\r\n\r\n');
    });
  });
}

const CRLF = Buffer.from('\r\n');

function parseAnswer(raw: Buffer): RawAnswer {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return { status: 0, headers: {}, body: '' };
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  let body = raw.subarray(end + 4);
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.toString('utf8') };
}

/** The payload of a chunked body, as far as it arrived. */
function dechunk(body: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const line = body.indexOf('\r\n', at);
    if (line < 0) break;
    const size = Number.parseInt(body.subarray(at, line).toString('latin1'), 16);
    if (!size) break;
    out.push(body.subarray(line + 2, line + 2 + size));
    at = line + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** A multipart body from parts given in order; `close: false` leaves the closing boundary off. */
export function multipartBody(
  boundary: string,
  parts: Array<{ name: string; filename?: string; type?: string; body: string | Buffer }>,
  close = true,
): Buffer {
  const pieces: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}`;
    const type = p.type ? `\r\ncontent-type: ${p.type}` : '';
    pieces.push(Buffer.from(`--${boundary}\r\ncontent-disposition: ${disposition}${type}\r\n\r\n`));
    pieces.push(typeof p.body === 'string' ? Buffer.from(p.body) : p.body, CRLF);
  }
  if (close) pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(pieces);
}

/** Splits bytes into chunks of `size`. */
export function chunksOf(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}
