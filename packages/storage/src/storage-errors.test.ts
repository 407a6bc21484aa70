import { describe, expect, it } from 'vitest';
import { toStorageError } from './storage-errors.js';

describe('toStorageError', () => {
  it('answers 503 when the database is gone (crash, restart, a cut network), as the database gate does', () => {
    const lost = [
      { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' },
      { code: 'CONNECTION_CLOSED', message: 'write CONNECTION_CLOSED' },
      { code: 'CONNECT_TIMEOUT', message: 'connect timeout' },
      { code: 'POOL_TIMEOUT', message: 'no database connection came free within 10000 ms' },
      { code: '57P01', severity: 'FATAL', message: 'terminating connection due to administrator command' },
      { code: '08006', severity: 'FATAL', message: 'connection failure' },
    ];
    for (const error of lost)
      expect(toStorageError(Object.assign(new Error(error.message), error)).toBody()).toEqual({
        statusCode: '503',
        error: 'DatabaseError',
        message: 'The database is not reachable; try again shortly',
      });
  });

  it('keeps the request errors and leaves the unknown ones 500', () => {
    const policy = Object.assign(new Error('new row violates row-level security policy'), {
      code: '42501',
      severity: 'ERROR',
    });
    expect(toStorageError(policy).status).toBe(403);
    expect(toStorageError(new Error('boom')).status).toBe(500);
  });
});
