// GET /bucket and GET /bucket/{id}: bucket configuration as storage-js reads it.
import { Hono } from 'hono';
import { checkBucketId, type StorageService } from '@auction-ops/storage';
import type { AppEnv } from '../../context.js';
import { callerOf } from './storage-request.js';

export function bucketRoutes(service: StorageService): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/', async (c) => c.json(await service.reads.listBuckets(callerOf(c))));
  app.get('/:id', async (c) => c.json(await service.reads.getBucket(callerOf(c), checkBucketId(c.req.param('id')))));
  return app;
}
