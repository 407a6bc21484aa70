// import-csv under DATA_DIR's free-space floor: refused with 507 INSUFFICIENT_STORAGE before anything is read,
// spooled or claimed, counting the declared size (or the largest import when none is declared).
import { describe, expect, it } from 'vitest';
import { FunctionError } from '../../errors.js';
import { type ImportDeps, importCsv } from './import-csv.js';

const caller = { role: 'authenticated' as const, userId: 'u', claims: {} as never };

function depsWith(admit: (operation: 'import', bytes?: number) => boolean): ImportDeps {
  // Nothing past the floor's check may be reached: the pools are traps.
  const trap = new Proxy(() => {}, {
    get: () => {
      throw new Error('the database was used');
    },
    apply: () => {
      throw new Error('the database was used');
    },
  });
  return {
    sql: trap as never,
    ownerSql: trap as never,
    queryCache: trap as never,
    importMaxBytes: 50 * 1024 * 1024,
    diskFloor: { admit },
    log: { error: () => {} },
  };
}

const request = (headers: Record<string, string>) => ({
  caller,
  request: new Request('http://x/functions/v1/import-csv', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ csv: 'a\n1\n' }),
  }),
  json: async () => ({}),
});

describe('import-csv and the free-space floor', () => {
  it('is refused with 507 INSUFFICIENT_STORAGE under the floor, counting the declared size', async () => {
    const asked: Array<number | undefined> = [];
    const refusal = await importCsv
      .handle(
        request({ 'content-length': '1234' }),
        depsWith((_op, bytes) => {
          asked.push(bytes);
          return false;
        }),
      )
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(FunctionError);
    expect((refusal as FunctionError).status).toBe(507);
    expect((refusal as FunctionError).toJSON()).toEqual({
      code: 'INSUFFICIENT_STORAGE',
      error: expect.stringMatching(/^Insufficient storage: free disk space on the server is below its floor/),
    });
    expect(asked).toEqual([1234]);
  });

  it('counts the largest import when no size is declared', async () => {
    const asked: Array<number | undefined> = [];
    await importCsv
      .handle(
        request({}),
        depsWith((_op, bytes) => {
          asked.push(bytes);
          return false;
        }),
      )
      .catch(() => {});
    expect(asked).toEqual([50 * 1024 * 1024]);
  });
});
