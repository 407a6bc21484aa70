import { describe, expect, it } from 'vitest';
import { sqlStateToStatus } from './errors.js';

describe('sqlStateToStatus', () => {
  it("maps as PostgREST's table does", () => {
    expect(sqlStateToStatus('23505', true)).toBe(409);
    expect(sqlStateToStatus('42501', true)).toBe(403);
    expect(sqlStateToStatus('42501', false)).toBe(401);
    expect(sqlStateToStatus('08006', true)).toBe(503);
    expect(sqlStateToStatus('57014', true)).toBe(500);
    expect(sqlStateToStatus('PT418', true)).toBe(418);
  });

  it('answers 500 for a PT code not followed by a number, infinite recursion and a configured limit exceeded', () => {
    expect(sqlStateToStatus('PT40A', true)).toBe(500);
    expect(sqlStateToStatus('42P17', true)).toBe(500);
    expect(sqlStateToStatus('53400', true)).toBe(500);
    expect(sqlStateToStatus('53200', true)).toBe(503);
  });

  it('answers 503 for a server shutting down, crashed or starting up, which PostgREST sees as a lost connection', () => {
    for (const code of ['57P01', '57P02', '57P03']) expect(sqlStateToStatus(code, true)).toBe(503);
    expect(sqlStateToStatus('57P04', true)).toBe(500);
  });
});
