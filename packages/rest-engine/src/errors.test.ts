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

describe('sqlStateToStatus: codes PostgREST decides by the message (suite: ErrorSpec, QuerySpec, RpcSpec)', () => {
  it('answers 500 for a cardinality violation of a subquery, 400 for a write refused without a WHERE clause', () => {
    expect(sqlStateToStatus('21000', false, 'more than one row returned by a subquery used as an expression')).toBe(
      500,
    );
    expect(sqlStateToStatus('21000', false, 'UPDATE requires a WHERE clause')).toBe(400);
  });

  it('answers 401 for a role that does not exist, 400 for other invalid parameter values', () => {
    expect(sqlStateToStatus('22023', true, 'role "not existing" does not exist')).toBe(401);
    expect(sqlStateToStatus('22023', false, 'invalid value for parameter "TimeZone": "Mars/Phobos"')).toBe(400);
  });

  it('answers 500 for infinite recursion, temp_file_limit and PT codes that are not statuses', () => {
    expect(sqlStateToStatus('42P17', false, 'infinite recursion detected in rules for relation "x"')).toBe(500);
    expect(sqlStateToStatus('53400', false, 'temporary file size exceeds temp_file_limit (1kB)')).toBe(500);
    expect(sqlStateToStatus('53300', false)).toBe(503);
    expect(sqlStateToStatus('PT40A', false)).toBe(500);
    expect(sqlStateToStatus('PT404', false)).toBe(404);
  });

  it('answers 406 when xmlagg is missing (rows asked for as XML), 404 for other missing functions', () => {
    expect(sqlStateToStatus('42883', false, 'function xmlagg(record) does not exist')).toBe(406);
    expect(sqlStateToStatus('42883', false, 'function nope(integer) does not exist')).toBe(404);
  });
});
