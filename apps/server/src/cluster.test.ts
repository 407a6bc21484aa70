// What the primary gives each worker of WEB_CONCURRENCY: its share of DB_POOL_SIZE and its environment. Settings
// alone are checked in packages/server-config.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '@auction-ops/server-config';
import { poolShares, workerEnvironment } from './cluster.js';

describe('WEB_CONCURRENCY', () => {
  it('splits DB_POOL_SIZE over the processes, the remainder to the first', () => {
    expect(poolShares(20, 2)).toEqual([10, 10]);
    expect(poolShares(20, 3)).toEqual([7, 7, 6]);
    expect(poolShares(2, 2)).toEqual([1, 1]);
  });

  it('keeps rate-limit counters in Postgres with several processes and refuses an explicit memory store', () => {
    const config = loadConfig({ WEB_CONCURRENCY: '2' });
    expect(workerEnvironment(config, {})).toEqual({ RATE_LIMITS_STORE: 'postgres', AUTH_RATE_LIMIT_STORE: 'postgres' });
    expect(() => workerEnvironment(config, { RATE_LIMITS_STORE: 'memory' })).toThrow(
      'invalid configuration: RATE_LIMITS_STORE="memory" counts per process; with WEB_CONCURRENCY=2 use postgres',
    );
    // Limits off: the data interface's store is never used, so memory is no mistake.
    const off = loadConfig({ WEB_CONCURRENCY: '2', RATE_LIMITS_ENABLED: 'false' });
    expect(workerEnvironment(off, { RATE_LIMITS_STORE: 'memory' })).toEqual({ AUTH_RATE_LIMIT_STORE: 'postgres' });
  });
});
