// Safety: arbitrary query strings and headers never crash the engine (no 500) and never yield SQL that Postgres
// rejects as a syntax error (42601); hostile text in every position stays data.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setup, USER_A, type Harness } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await setup({ aggregatesEnabled: true, maxRows: 50, statementTimeoutMs: 2000, txRollbackAllowed: true });
});
afterAll(async () => {
  await h.close();
});

function assertSafe(res: { status: number; json: any; text: string | null }, what: string) {
  expect(res.status, `${what} -> ${res.text}`).not.toBe(500);
  expect(res.status, `${what} -> ${res.text}`).toBeLessThan(500);
  // to_tsquery reports malformed search text with 42601 too ("syntax error in tsquery", "no escaped character"):
  // that is input, not SQL. A syntax error in the statement itself names a position ("at or near", "at end of input").
  if (res.json && typeof res.json === 'object' && res.json.code === '42601')
    expect(res.json.message, what).not.toMatch(/at or near|at end of input/);
}

const HOSTILE = [
  `'`,
  `''`,
  `"`,
  `";--`,
  `'; drop table users; --`,
  `/*`,
  `*/`,
  `--`,
  `;`,
  `$1`,
  `$$`,
  `\\`,
  `\\"`,
  `)`,
  `((`,
  `()`,
  `(,)`,
  `%00`,
  `\u0000`,
  `é`,
  `𝔘𝔫𝔦`,
  `\u202e`,
  `a,b`,
  `a.b`,
  `a:b`,
  `a::b`,
  `->`,
  `->>`,
  `{`,
  `}`,
  `[]`,
  `!`,
  `*`,
  ` `,
  `+`,
  `%`,
  `null`,
  `x" OR "1"="1`,
  `1) OR (1=1`,
  `users; select pg_sleep(10)`,
  `E'\\x27'`,
  `U&"\\0061"`,
  `pg_catalog.pg_authid`,
];

describe('property: arbitrary requests', () => {
  const piece = fc.oneof(
    fc.constantFrom(
      ...HOSTILE,
      'id',
      'name',
      'select',
      'order',
      'limit',
      'eq.',
      'in.(',
      'or=(',
      'users(',
      'tasks',
      '=',
      '&',
      ',',
      '.',
      // The grammars added since (spreads, aggregates and casts before them, JSON paths, embed null checks).
      '...',
      '...tasks(',
      'count()',
      '.sum()',
      '.avg()',
      '::int',
      '::text',
      '->0',
      '->>',
      '!inner',
      'tasks=not.is.null',
      ')',
    ),
    fc.string({ maxLength: 6 }),
  );
  const query = fc.array(piece, { maxLength: 10 }).map((xs) => xs.join(''));
  const path = fc.constantFrom(
    '/projects',
    '/tasks',
    '/users',
    '/rpc/add_numbers',
    '/rpc/projects_of',
    '/nope',
    '/',
    '/rpc/echo',
  );

  it('GET with arbitrary query strings', async () => {
    await fc.assert(
      fc.asyncProperty(path, query, async (p, q) => {
        assertSafe(await h.req('GET', `${p}?${q}`), `GET ${p}?${q}`);
      }),
      { numRuns: 250 },
    );
  });

  it('GET with arbitrary Accept headers: media ranges, q-values and parameters in any order', async () => {
    const range = fc.oneof(
      fc.constantFrom(
        '*/*',
        'text/*',
        'application/json',
        'text/csv',
        'text/plain',
        'application/octet-stream',
        'application/geo+json',
        'application/vnd.pgrst.object+json',
        'application/vnd.pgrst.object+json;nulls=stripped',
        'application/vnd.pgrst.array+json;nulls=stripped',
        'application/vnd.pgrst.plan+json;for="application/json"',
        'image/png',
        ...HOSTILE,
      ),
      fc.string({ maxLength: 8 }),
    );
    const entry = fc
      .tuple(range, fc.option(fc.constantFrom('q=0', 'q=0.5', 'q=1', 'q=x', 'q=', 'charset=utf-8')))
      .map(([r, param]) => (param ? `${r};${param}` : r));
    const accept = fc.array(entry, { minLength: 1, maxLength: 4 }).map((xs) => xs.join(', '));
    await fc.assert(
      fc.asyncProperty(path, query, accept, async (p, q, a) => {
        const res = await h.req('GET', `${p}?${q}`, { headers: { accept: a } });
        assertSafe(res, `GET ${p}?${q} accept=${a}`);
      }),
      { numRuns: 200 },
    );
  });

  it('writes and headers with arbitrary text', async () => {
    const header = fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ maxLength: 12 }));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('POST', 'PATCH', 'DELETE', 'PUT'),
        path,
        query,
        header,
        header,
        fc.jsonValue({ maxDepth: 2 }),
        async (method, p, q, prefer, accept, body) => {
          const res = await h.req(method, `${p}?${q}`, {
            headers: { prefer: `${prefer},tx=rollback`, accept, 'accept-profile': prefer },
            body,
            claims: USER_A,
          });
          assertSafe(res, `${method} ${p}?${q} prefer=${prefer} accept=${accept} body=${JSON.stringify(body)}`);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('SQL injection suite', () => {
  const positions: ((x: string) => [string, string, object?])[] = [
    (x) => ['GET', `/projects?name=eq.${encodeURIComponent(x)}`],
    (x) => ['GET', `/projects?name=in.(${encodeURIComponent(`"${x.replace(/["\\]/g, '\\$&')}"`)},b)`],
    (x) => ['GET', `/projects?or=(name.eq.${encodeURIComponent(`"${x.replace(/["\\]/g, '\\$&')}"`)},id.eq.1)`],
    (x) => ['GET', `/projects?select=${encodeURIComponent(x)}`],
    (x) => ['GET', `/projects?select=${encodeURIComponent(`a:${x}`)}`],
    (x) => ['GET', `/projects?select=id,${encodeURIComponent(`"${x.replace(/["\\]/g, '\\$&')}"`)}`],
    (x) => ['GET', `/projects?select=id::${encodeURIComponent(x)}`],
    (x) => ['GET', `/projects?select=meta->>${encodeURIComponent(x)}`],
    (x) => ['GET', `/projects?meta->>${encodeURIComponent(x)}=eq.1`],
    (x) => ['GET', `/projects?order=${encodeURIComponent(x)}`],
    (x) => ['GET', `/projects?select=*,${encodeURIComponent(x)}(*)`],
    (x) => ['GET', `/projects?select=*,users!${encodeURIComponent(x)}(*)`],
    (x) => ['GET', `/projects?search=fts(${encodeURIComponent(x)}).a`],
    (x) => ['GET', `/projects?search=fts.${encodeURIComponent(x)}`],
    (x) => ['GET', `/projects?limit=${encodeURIComponent(x)}`],
    (x) => ['GET', `/${encodeURIComponent(x)}`],
    (x) => ['GET', `/rpc/${encodeURIComponent(x)}`],
    (x) => ['GET', `/rpc/add_numbers?a=${encodeURIComponent(x)}`],
    (x) => ['POST', '/tags', { name: x }],
    (x) => ['POST', '/tags', { [x]: 1 }],
    (x) => ['POST', `/tags?columns=${encodeURIComponent(x)}`, { name: 'n' }],
    (x) => ['POST', `/tags?on_conflict=${encodeURIComponent(x)}`, { name: 'alpha' }],
    (x) => ['PATCH', `/tags?name=eq.${encodeURIComponent(x)}`, { name: x }],
    (x) => ['POST', '/rpc/add_numbers', { a: x, b: 1 }],
    (x) => ['POST', '/rpc/echo', { [x]: x }],
  ];

  it('keeps hostile text as data in every position', async () => {
    const [{ count: before }] = await h.db.sql`select count(*)::int as count from users`;
    for (const x of HOSTILE) {
      for (const pos of positions) {
        const [method, url, body] = pos(x);
        const res = await h.req(method, url, {
          body,
          claims: USER_A,
          headers: { prefer: 'tx=rollback', 'accept-profile': x },
        });
        assertSafe(res, `${method} ${url} ${JSON.stringify(body)}`);
        const res2 = await h.req(method, url, {
          body,
          claims: USER_A,
          headers: { prefer: 'return=representation,tx=rollback' },
        });
        assertSafe(res2, `${method} ${url} ${JSON.stringify(body)}`);
      }
    }
    const [{ count: after }] = await h.db.sql`select count(*)::int as count from users`;
    expect(after).toBe(before);
    const [{ count: tags }] = await h.db.sql`select count(*)::int as count from tags`;
    expect(tags).toBe(3); // every write above was rolled back
  });

  it('finds a row whose value is hostile text, exactly', async () => {
    await h.db.sql`insert into tags (name) values (${`'; drop table users; --`})`;
    const res = await h.req('GET', `/tags?select=name&name=eq.${encodeURIComponent(`'; drop table users; --`)}`);
    expect(res.json).toEqual([{ name: `'; drop table users; --` }]);
  });
});
