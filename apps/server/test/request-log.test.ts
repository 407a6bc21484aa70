// The request log line: written at info with its fields, and not built at all when info lines are not written.
import { describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import type { AppEnv } from '../src/context.js';
import { createLogger, type Level } from '../src/logger.js';
import { logRequest } from '../src/middleware/request-log.js';

function appLoggingAt(level: Level | 'silent', lines: string[]) {
  const log = createLogger(level, (line) => lines.push(line));
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => {
    const start = performance.now();
    await next();
    logRequest(log, c, 'req-1', start, c.res.status);
  });
  app.get('/rest/v1/items', (c) => c.json([], 200));
  return app;
}

describe('request log', () => {
  it('writes one JSON line per request at info, without the query string', async () => {
    const lines: string[] = [];
    const res = await appLoggingAt('info', lines).request('/rest/v1/items?apikey=secret-key&select=*');
    expect(res.status).toBe(200);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]);
    expect(line).toMatchObject({ level: 'info', msg: 'request', id: 'req-1', method: 'GET', path: '/rest/v1/items' });
    expect(line.status).toBe(200);
    expect(typeof line.duration_ms).toBe('number');
    expect(lines[0]).not.toContain('secret-key');
  });

  it('writes nothing at warn', async () => {
    const lines: string[] = [];
    await appLoggingAt('warn', lines).request('/rest/v1/items');
    expect(lines).toEqual([]);
  });

  it('says which levels it writes', () => {
    const log = createLogger('warn', () => {});
    expect([log.enabled('debug'), log.enabled('info'), log.enabled('warn'), log.enabled('error')]).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(createLogger('silent', () => {}).enabled('error')).toBe(false);
  });
});
