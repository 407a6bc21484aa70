// The two upload body shapes storage-js sends: raw bytes (Content-Type, Cache-Control, x-metadata headers) or
// multipart/form-data (fields cacheControl, contentType, metadata before one file part). Either way the file
// arrives as a stream; nothing is buffered.
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { errors } from './storage-errors.js';

export interface UploadBody {
  source: Readable;
  declaredType: string | undefined;
  cacheControl: string;
  userMetadata: Record<string, unknown> | null;
  /** From Content-Length when the body is raw; lets an oversized upload be refused before reading it. */
  contentLength: number | undefined;
}

type HeaderGetter = (name: string) => string | undefined;

const DEFAULT_CACHE_CONTROL = 'max-age=3600';

/** The Cache-Control stored with an object, from what a client sent (uploads and resumable uploads alike). */
export function cacheControlOf(value: string | undefined): string {
  if (!value) return DEFAULT_CACHE_CONTROL;
  // storage-js sends a bare number of seconds in forms and `max-age=N` in headers.
  return /^\d+$/.test(value) ? `max-age=${value}` : value.slice(0, 200);
}

/** The user metadata stored with an object: a JSON object, or a 400. */
export function metadataOf(json: string | undefined): Record<string, unknown> | null {
  if (!json) return null;
  try {
    const value: unknown = JSON.parse(json);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw errors.invalidRequest('metadata must be a JSON object');
}

export function readUploadBody(header: HeaderGetter, source: Readable | null): Promise<UploadBody> {
  if (!source) return Promise.reject(errors.invalidRequest('The request has no body'));
  const contentType = header('content-type') ?? '';
  if (!/^multipart\/form-data/i.test(contentType)) {
    const length = header('content-length');
    const xMetadata = header('x-metadata');
    return Promise.resolve({
      source,
      declaredType: contentType || undefined,
      cacheControl: cacheControlOf(header('cache-control')),
      userMetadata: metadataOf(xMetadata ? Buffer.from(xMetadata, 'base64').toString('utf8') : undefined),
      contentLength: length && /^\d+$/.test(length) ? Number(length) : undefined,
    });
  }
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: { files: 1, fields: 20, fieldSize: 64 * 1024 },
      });
    } catch {
      reject(errors.invalidRequest('Malformed multipart body'));
      return;
    }
    const fields: Record<string, string> = {};
    let file: Readable | undefined;
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (_name, stream, info) => {
      file = stream;
      try {
        resolve({
          source: stream,
          declaredType: fields.contentType ?? info.mimeType,
          cacheControl: cacheControlOf(fields.cacheControl),
          userMetadata: metadataOf(fields.metadata),
          contentLength: undefined,
        });
      } catch (error) {
        stream.resume();
        reject(error);
      }
    });
    const broken = () => {
      const error = errors.invalidRequest('The upload was interrupted or the multipart body is malformed');
      if (file && !file.readableEnded) file.destroy(error);
      reject(error);
    };
    parser.on('error', broken);
    parser.on('close', () => reject(errors.invalidRequest('The multipart body has no file')));
    // Joined by pipeline: a body that breaks off destroys the parser, which fails the file stream it handed out.
    pipeline(source, parser).catch(broken);
  });
}
