// /object: upload, update, download (caller, public, signed), info, remove, list, move, copy, signed URLs.
// Thin: each handler validates the request and makes one call into the storage service.
import { Hono, type Context } from 'hono';
import {
  checkBucketId,
  infoBody,
  readUploadBody,
  storageErrors,
  type StorageService,
  type UploadMode,
} from '@auction-ops/storage';
import type { AppEnv } from '../../context.js';
import type { Logger } from '../../logger.js';
import { objectResponse } from './download-response.js';
import { callerOf, jsonBody, objectRefAfter, rawPath, requestBody, stringField } from './storage-request.js';

export function objectRoutes(service: StorageService, log: Logger): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { reads, writes, removals, transfers } = service;

  app.post('/list/:bucket', async (c) => {
    const { bucket } = objectRefAfter(c, '/object/list/');
    return c.json(await reads.list(callerOf(c), bucket, await jsonBody(c)));
  });
  app.post('/list-v2/:bucket', async (c) => {
    const { bucket } = objectRefAfter(c, '/object/list-v2/');
    return c.json(await reads.listV2(callerOf(c), bucket, await jsonBody(c)));
  });

  // storage-js sends destinationBucket for moves and copies across buckets; copy honours x-upsert.
  for (const verb of ['move', 'copy'] as const) {
    app.post(`/${verb}`, async (c) => {
      const body = await jsonBody(c);
      const fromBucket = checkBucketId(stringField(body, 'bucketId'));
      const toBucket =
        body.destinationBucket === undefined || body.destinationBucket === null
          ? fromBucket
          : checkBucketId(stringField(body, 'destinationBucket'));
      const transfer = {
        fromBucket,
        from: stringField(body, 'sourceKey'),
        toBucket,
        to: stringField(body, 'destinationKey'),
      };
      const caller = callerOf(c);
      return c.json(
        verb === 'move'
          ? await transfers.move(caller, transfer)
          : await transfers.copy(caller, transfer, c.req.header('x-upsert') === 'true'),
      );
    });
  }

  app.post('/sign/*', async (c) => {
    const ref = objectRefAfter(c, '/object/sign/');
    const body = await jsonBody(c);
    const caller = callerOf(c);
    if (ref.name === '') return c.json(await reads.signMany(caller, ref.bucket, body.paths, body.expiresIn));
    return c.json(await reads.sign(caller, ref, body.expiresIn, service.images.signClaim(body.transform)));
  });

  // Open paths (no API key needed): the token or the bucket's public flag is the authorization, so a stale
  // Authorization header a browser may still send is ignored rather than refused.
  app.on(['GET', 'HEAD'], '/sign/*', async (c) => {
    const ref = objectRefAfter(c, '/object/sign/');
    const token = c.req.query('token');
    if (!token) throw storageErrors.invalidRequest('Missing token');
    return objectResponse(c, service, await reads.findObject({ kind: 'signed', token }, ref), log);
  });
  app.on(['GET', 'HEAD'], '/public/*', async (c) => {
    const ref = objectRefAfter(c, '/object/public/');
    return objectResponse(c, service, await reads.findObject({ kind: 'public' }, ref), log);
  });
  app.on(['GET', 'HEAD'], '/authenticated/*', async (c) => {
    const ref = objectRefAfter(c, '/object/authenticated/');
    return objectResponse(c, service, await reads.findObject({ kind: 'caller', caller: callerOf(c) }, ref), log);
  });

  app.get('/info/*', async (c) => {
    const path = rawPath(c);
    const isPublic = path.includes('/object/info/public/');
    const marker = isPublic
      ? '/object/info/public/'
      : path.includes('/object/info/authenticated/')
        ? '/object/info/authenticated/'
        : '/object/info/';
    const ref = objectRefAfter(c, marker);
    const row = await reads.findObject(isPublic ? { kind: 'public' } : { kind: 'caller', caller: callerOf(c) }, ref);
    return c.json(infoBody(row));
  });

  // Signed upload URLs: created by a caller who may write the path; used without further authentication.
  app.post('/upload/sign/*', async (c) => {
    const ref = objectRefAfter(c, '/object/upload/sign/');
    if (ref.name === '') throw storageErrors.invalidKey('Invalid key: missing object name');
    const caller = callerOf(c);
    const body = c.req.header('content-type')?.includes('json') ? await jsonBody(c) : {};
    return c.json(await service.signedUploads.create(caller, ref, c.req.header('x-upsert') === 'true', body.expiresIn));
  });
  app.put('/upload/sign/*', async (c) => {
    const ref = objectRefAfter(c, '/object/upload/sign/');
    const token = c.req.query('token');
    if (!token) throw storageErrors.invalidRequest('Missing token');
    const body = await readUploadBody((name) => c.req.header(name), requestBody(c));
    return c.json(await service.signedUploads.upload(ref, token, body));
  });

  const upload = (mode: (c: Context<AppEnv>) => UploadMode) => async (c: Context<AppEnv>) => {
    const ref = objectRefAfter(c, '/object/');
    if (ref.name === '') throw storageErrors.invalidKey('Invalid key: missing object name');
    const caller = callerOf(c);
    const body = await readUploadBody((name) => c.req.header(name), requestBody(c));
    return c.json(await writes.upload(caller, ref, body, mode(c)));
  };
  app.post(
    '/*',
    upload((c) => (c.req.header('x-upsert') === 'true' ? 'upsert' : 'create')),
  );
  app.put(
    '/*',
    upload(() => 'update'),
  );

  app.on(['GET', 'HEAD'], '/*', async (c) => {
    const ref = objectRefAfter(c, '/object/');
    return objectResponse(c, service, await reads.findObject({ kind: 'caller', caller: callerOf(c) }, ref), log);
  });

  app.delete('/*', async (c) => {
    const ref = objectRefAfter(c, '/object/');
    const caller = callerOf(c);
    if (ref.name !== '') return c.json(await removals.removeOne(caller, ref));
    const body = await jsonBody(c);
    return c.json(await removals.removeMany(caller, ref.bucket, body.prefixes));
  });

  return app;
}
