// Where the CSV of an import comes from: a multipart upload (part `options` as JSON and part `file`, streamed,
// never held whole) or a JSON body with the options and `csv` as text. Both are counted against the size limit
// as they stream in.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import busboy from 'busboy';
import { functionErrors } from '../../errors.js';

interface ImportSource {
  options: unknown;
  /** The CSV's bytes; errors with a VALIDATION_ERROR (413) past the limit. */
  csv: Readable;
  /** Declared size of the request, when known. */
  bytes: number | null;
  /** Removes what was spooled, if anything; safe to call twice. */
  cleanup(): Promise<void>;
}

export async function readImportSource(request: Request, maxBytes: number): Promise<ImportSource> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  const bytes = Number.isFinite(declared) ? declared : null;
  // Multipart adds boundaries and the options part: a little slack over the file limit itself.
  if (bytes !== null && bytes > maxBytes + 64 * 1024) throw tooLarge(maxBytes);
  if (!request.body) throw functionErrors.invalidRequest('file', 'the request has no body');
  const type = request.headers.get('content-type') ?? '';
  const body = Readable.fromWeb(request.body as unknown as WebReadableStream);
  if (type.startsWith('multipart/form-data')) return multipart(body, type, maxBytes, bytes);
  if (type.startsWith('application/json') || type === '') return json(body, maxBytes, bytes);
  body.destroy();
  throw functionErrors.invalidRequest('body', 'send multipart/form-data (options, file) or application/json');
}

function tooLarge(maxBytes: number) {
  return functionErrors.tooLarge(`the file is larger than ${Math.round(maxBytes / 1024 / 1024)} MB`);
}

/** Passes bytes through and fails the stream once more than maxBytes went by. */
function byteLimit(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      done(seen > maxBytes ? tooLarge(maxBytes) : null, chunk);
    },
  });
}

async function json(body: Readable, maxBytes: number, bytes: number | null): Promise<ImportSource> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes + 64 * 1024) {
      body.destroy();
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw functionErrors.invalidRequest('body', 'the request body is not valid JSON');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw functionErrors.invalidRequest('body', 'the request body must be a JSON object');
  const { csv, ...options } = parsed as Record<string, unknown>;
  if (typeof csv !== 'string') throw functionErrors.invalidRequest('csv', 'csv (the file as text) is required');
  const text = Buffer.from(csv, 'utf8');
  if (text.length > maxBytes) throw tooLarge(maxBytes);
  return { options, csv: Readable.from([text]), bytes: bytes ?? text.length, cleanup: async () => {} };
}

/**
 * Streams the `file` part. When `options` comes first (as dashboards send it) the file is parsed as it arrives;
 * when the file comes first it is spooled to a temporary file until the options are known.
 */
function multipart(body: Readable, type: string, maxBytes: number, bytes: number | null): Promise<ImportSource> {
  return new Promise((resolve, reject) => {
    let options: unknown;
    let settled = false;
    let spoolDir: string | undefined;
    let spooled: Promise<string> | undefined;
    const cleanup = async () => {
      if (spoolDir) await rm(spoolDir, { recursive: true, force: true });
      spoolDir = undefined;
    };
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      body.unpipe();
      body.resume();
      void cleanup();
      reject(error);
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: { 'content-type': type }, limits: { files: 1, fields: 20, fieldSize: 1024 * 1024 } });
    } catch {
      reject(functionErrors.invalidRequest('body', 'the multipart body has no boundary'));
      return;
    }
    parser.on('field', (name, value) => {
      if (name !== 'options') return;
      try {
        options = JSON.parse(value);
      } catch {
        fail(functionErrors.invalidRequest('options', 'options must be a JSON string'));
      }
    });
    parser.on('file', (name, file) => {
      if (name !== 'file' || settled) {
        file.resume();
        return;
      }
      // Joined by pipeline, not pipe: the limiter's overrun and a broken upload both reach whoever reads `limited`.
      const limited = byteLimit(maxBytes);
      // A file part that breaks off (body cut, malformed end) is the client's error, named as such.
      file.once('error', () =>
        limited.destroy(functionErrors.invalidRequest('file', 'the upload was interrupted or is malformed')),
      );
      pipeline(file, limited).catch(() => {});
      if (options !== undefined) {
        settled = true;
        resolve({ options, csv: limited, bytes, cleanup });
        return;
      }
      spooled = (async () => {
        spoolDir = await mkdtemp(join(tmpdir(), 'auction-ops-import-'));
        const path = join(spoolDir, 'upload.csv');
        await pipeline(limited, createWriteStream(path));
        return path;
      })();
      spooled.catch(fail);
    });
    parser.on('error', () => fail(functionErrors.invalidRequest('body', 'the multipart body is malformed')));
    parser.on('close', () => {
      if (settled) return;
      if (!spooled) return fail(functionErrors.invalidRequest('file', 'the form has no file part'));
      if (options === undefined) return fail(functionErrors.invalidRequest('options', 'the form has no options part'));
      spooled.then((path) => {
        settled = true;
        resolve({ options, csv: createReadStream(path), bytes, cleanup });
      }, fail);
    });
    // A body that breaks off (client gone, idle timeout) destroys the parser and with it the file stream, so the
    // import reading it fails instead of waiting for bytes that never come.
    pipeline(body, parser).catch(() => fail(functionErrors.invalidRequest('body', 'the upload was interrupted')));
  });
}
