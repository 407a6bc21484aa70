// /upload/resumable: TUS 1.0 resumable uploads (tus-js-client, Uppy), as Supabase's storage serves them.
// Thin: each handler reads the TUS headers and makes one call into the storage service's tus uploads.
import { Readable } from 'node:stream';
import { Hono } from 'hono';
import {
  checkTusResumable,
  parseTusInteger,
  parseUploadMetadata,
  storageErrors,
  type StorageService,
  TUS_VERSION,
  type TusState,
} from '@auction-ops/storage';
import type { AppEnv, ServerContext } from '../../context.js';
import { callerOf, requestBody } from './storage-request.js';

const TUS_EXTENSIONS = 'creation,termination,expiration';
const CHUNK_TYPE = 'application/offset+octet-stream';

function offsetHeaders(state: TusState): Record<string, string> {
  return {
    'Upload-Offset': String(state.offset),
    'Upload-Expires': state.expiresAt.toUTCString(),
    'Cache-Control': 'no-store',
  };
}

export function tusRoutes(ctx: ServerContext, service: StorageService): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { tus } = service;

  app.use('*', async (c, next) => {
    c.header('Tus-Resumable', TUS_VERSION);
    if (c.req.method !== 'OPTIONS') checkTusResumable(c.req.header('tus-resumable'));
    await next();
  });

  app.options('*', (c) =>
    c.body(null, 204, {
      'Tus-Version': TUS_VERSION,
      'Tus-Extension': TUS_EXTENSIONS,
      'Tus-Max-Size': String(ctx.config.STORAGE_FILE_SIZE_LIMIT),
    }),
  );

  app.post('/', async (c) => {
    if (c.req.header('upload-defer-length') !== undefined) {
      throw storageErrors.invalidRequest('Upload-Defer-Length is not supported: send Upload-Length');
    }
    const state = await tus.create(callerOf(c), {
      length: parseTusInteger(c.req.header('upload-length'), 'Upload-Length'),
      metadata: parseUploadMetadata(c.req.header('upload-metadata')),
      upsert: c.req.header('x-upsert') === 'true',
    });
    return c.body(null, 201, {
      // PUBLIC_URL is settled once the port is known (PORT=0), after the routes are built: read it per request.
      Location: `${ctx.config.PUBLIC_URL}/storage/v1/upload/resumable/${state.id}`,
      'Upload-Expires': state.expiresAt.toUTCString(),
    });
  });

  // Hono serves HEAD through GET routes (and drops the body).
  app.get('/:id', async (c) => {
    const state = await tus.status(callerOf(c), c.req.param('id'));
    return c.body(null, 200, { ...offsetHeaders(state), 'Upload-Length': String(state.length) });
  });

  app.patch('/:id', async (c) => {
    const body = requestBody(c);
    try {
      if (c.req.header('content-type') !== CHUNK_TYPE) {
        throw storageErrors.invalidMimeType(`Content-Type must be ${CHUNK_TYPE}`);
      }
      const offset = parseTusInteger(c.req.header('upload-offset'), 'Upload-Offset');
      const length = c.req.header('content-length');
      const declared = length === undefined ? undefined : parseTusInteger(length, 'Content-Length');
      const state = await tus.append(callerOf(c), c.req.param('id'), offset, body ?? emptyBody(), declared);
      return c.body(null, 204, offsetHeaders(state));
    } catch (error) {
      // Refused before the body was read: the connection cannot carry another request.
      if (body && !body.readableEnded) c.header('Connection', 'close');
      throw error;
    }
  });

  app.delete('/:id', async (c) => {
    await tus.terminate(callerOf(c), c.req.param('id'));
    return c.body(null, 204);
  });

  return app;
}

function emptyBody() {
  return Readable.from([]);
}
