// /bucket: list and read bucket configuration (every role), create, update, empty and delete (service role
// and super admins; RLS on storage.buckets decides, anyone else gets 403).
import { Hono } from 'hono';
import { checkBucketId, type StorageService } from '@auction-ops/storage';
import type { AppEnv } from '../../context.js';
import { callerOf, jsonBody } from './storage-request.js';

export function bucketRoutes(service: StorageService): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { buckets } = service;
  app.get('/', async (c) => c.json(await buckets.list(callerOf(c), c.req.query())));
  app.get('/:id', async (c) => c.json(await service.reads.getBucket(callerOf(c), checkBucketId(c.req.param('id')))));
  app.post('/', async (c) => {
    const caller = callerOf(c);
    return c.json(await buckets.create(caller, await jsonBody(c)));
  });
  app.put('/:id', async (c) => {
    const caller = callerOf(c);
    return c.json(await buckets.update(caller, c.req.param('id'), await jsonBody(c)));
  });
  app.post('/:id/empty', async (c) => c.json(await buckets.empty(callerOf(c), c.req.param('id'))));
  app.delete('/:id', async (c) => c.json(await buckets.remove(callerOf(c), c.req.param('id'))));
  return app;
}
