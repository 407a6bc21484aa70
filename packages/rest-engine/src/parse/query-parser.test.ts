// Table-driven parser examples (input -> tree) and parse-print round trips.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseField, parseFilter, parseLogic, printCondition } from './filter-parser.js';
import { acceptEntries, parseAccept, parsePrefer, parseRange } from './header-parser.js';
import { parseOrder, printOrder } from './order-parser.js';
import { parseQuery } from './query-parser.js';
import { parseSelect, printSelect } from './select-parser.js';

const f = (name: string) => parseField(name);

describe('select parser', () => {
  it.each([
    ['*', [{ kind: 'star' }]],
    [
      'id,name',
      [
        { kind: 'column', field: f('id'), alias: null, cast: null },
        { kind: 'column', field: f('name'), alias: null, cast: null },
      ],
    ],
    ['n:name::text', [{ kind: 'column', field: f('name'), alias: 'n', cast: 'text' }]],
    [
      'meta->a->>b',
      [
        {
          kind: 'column',
          field: {
            name: 'meta',
            jsonPath: [
              { arrow: '->', key: 'a', index: false },
              { arrow: '->>', key: 'b', index: false },
            ],
          },
          alias: null,
          cast: null,
        },
      ],
    ],
    [
      'arr->0',
      [
        {
          kind: 'column',
          field: { name: 'arr', jsonPath: [{ arrow: '->', key: '0', index: true }] },
          alias: null,
          cast: null,
        },
      ],
    ],
    ['"display name"', [{ kind: 'column', field: f('"display name"'), alias: null, cast: null }]],
    [
      'user:users!owner_id!inner(id,email)',
      [
        {
          kind: 'embed',
          name: 'users',
          alias: 'user',
          hint: 'owner_id',
          join: 'inner',
          spread: false,
          select: [
            { kind: 'column', field: f('id'), alias: null, cast: null },
            { kind: 'column', field: f('email'), alias: null, cast: null },
          ],
        },
      ],
    ],
    ['tasks()', [{ kind: 'embed', name: 'tasks', alias: null, hint: null, join: null, spread: false, select: [] }]],
    [
      '...projects(name)',
      [
        {
          kind: 'embed',
          name: 'projects',
          alias: null,
          hint: null,
          join: null,
          spread: true,
          select: [{ kind: 'column', field: f('name'), alias: null, cast: null }],
        },
      ],
    ],
    ['count()', [{ kind: 'aggregate', fn: 'count', field: null, fieldCast: null, alias: null, cast: null }]],
    [
      'total:amount.sum()::int',
      [{ kind: 'aggregate', fn: 'sum', field: f('amount'), fieldCast: null, alias: 'total', cast: 'int' }],
    ],
    [
      's:data->>n::int.sum()::text',
      [
        {
          kind: 'aggregate',
          fn: 'sum',
          field: { name: 'data', jsonPath: [{ arrow: '->>', key: 'n', index: false }] },
          fieldCast: 'int',
          alias: 's',
          cast: 'text',
        },
      ],
    ],
  ])('%s', (input, tree) => {
    expect(parseSelect(input)).toEqual(tree);
  });

  it.each(['a,(', 'x(', 'a::bad;type', ':x', 'a!b!c!d(x)', '...col'])('rejects %s with PGRST100', (input) => {
    expect(() => parseSelect(input)).toThrow(expect.objectContaining({ code: 'PGRST100', status: 400 }));
  });
});

describe('filter parser', () => {
  it.each([
    ['eq.5', { op: 'eq', negate: false, quant: null, lang: null, value: { kind: 'scalar', value: '5' } }],
    ['not.in.(1,"a,b",c\\d)', { op: 'in', negate: true, value: { kind: 'list', values: ['1', 'a,b', 'c\\d'] } }],
    // As PostgREST: a lone quote is a value, blanks after the parenthesis are skipped, a quoted string followed by
    // more text is read as it is.
    ['in.(")', { op: 'in', negate: false, value: { kind: 'list', values: ['"'] } }],
    ['in.( ,3, 4)', { op: 'in', negate: false, value: { kind: 'list', values: ['', '3', ' 4'] } }],
    ['in.("a"b,"c\\"d")', { op: 'in', negate: false, value: { kind: 'list', values: ['"a"b', 'c"d'] } }],
    ['in.()', { op: 'in', value: { kind: 'list', values: [] } }],
    ['is.NULL', { op: 'is', value: { kind: 'is', value: 'null' } }],
    ['like.*foo*', { op: 'like', value: { kind: 'scalar', value: '%foo%' } }],
    ['eq(any).{1,2}', { op: 'eq', quant: 'any', value: { kind: 'list', values: ['1', '2'] } }],
    ['fts(french).amour', { op: 'fts', lang: 'french', value: { kind: 'scalar', value: 'amour' } }],
    ['cs.{a,b}', { op: 'cs', value: { kind: 'scalar', value: '{a,b}' } }],
    ['eq.a.b.c', { op: 'eq', value: { kind: 'scalar', value: 'a.b.c' } }],
  ])('%s', (spec, expected) => {
    expect(parseFilter(f('c'), spec)).toMatchObject(expected);
  });

  it.each(['5', 'eqq.1', 'is.maybe', 'in.1,2', 'eq(some).1', 'fts(bad lang).x'])('rejects %s', (spec) => {
    expect(() => parseFilter(f('c'), spec)).toThrow(expect.objectContaining({ code: 'PGRST100' }));
  });

  it('parses nested, negated logic trees with quoted values', () => {
    const tree = parseLogic('or', false, '(a.lt.18,not.and(b.gte.1,b.lte.2),c.eq."x,y",d.in.(1,2))');
    expect(printCondition(tree)).toBe('or(a.lt.18,not.and(b.gte.1,b.lte.2),c.eq."x,y",d.in.(1,2))');
    expect(tree.children[2]).toMatchObject({ value: { kind: 'scalar', value: 'x,y' } });
  });
});

describe('order and query parser', () => {
  it('parses order terms', () => {
    expect(parseOrder('a.desc.nullslast,b,json->>k.asc,projects(name).desc')).toEqual([
      { kind: 'order', relation: null, field: f('a'), dir: 'desc', nulls: 'last' },
      { kind: 'order', relation: null, field: f('b'), dir: null, nulls: null },
      { kind: 'order', relation: null, field: f('json->>k'), dir: 'asc', nulls: null },
      { kind: 'order', relation: 'projects', field: f('name'), dir: 'desc', nulls: null },
    ]);
  });

  it('sorts parameters by role and embed path', () => {
    const q = parseQuery(
      'select=*,tasks(*)&id=eq.1&id=lt.9&tasks.done=is.true&tasks.order=id&tasks.limit=2' +
        '&not.or=(a.eq.1,b.eq.2)&columns="a","b"&on_conflict=a',
    );
    expect(q.filters.map((x) => [x.path, x.key])).toEqual([
      [[], 'id'],
      [[], 'id'],
      [['tasks'], 'tasks.done'],
    ]);
    expect(q.order[0].path).toEqual(['tasks']);
    expect(q.limits).toEqual([{ path: ['tasks'], node: { limit: 2, offset: null } }]);
    expect(q.logic[0]).toMatchObject({ path: [], node: { op: 'or', negate: true } });
    expect(q.columns).toEqual(['a', 'b']);
    expect(q.onConflict).toEqual(['a']);
  });

  it('reads a select as PostgREST does: up to a top-level item it cannot continue after, the rest unread', () => {
    const names = (search: string) => parseQuery(search).select?.map((s) => (s.kind === 'embed' ? s.name : s.kind));
    expect(names("select=name,projects(count)'")).toEqual(['column', 'projects']);
    expect(names('select=name,...tasks(id,...projects(id)))&id=eq.5')).toEqual(['column', 'tasks']);
    expect(names('select=a,tasks(id)x,b')).toEqual(['column', 'tasks']);
    expect(names('select=a,tasks(id) ,b')).toEqual(['column', 'tasks', 'column']);
    expect(parseQuery('select=n:count()::text,a').select).toEqual([
      { kind: 'aggregate', fn: 'count', field: null, fieldCast: null, alias: 'n', cast: 'text' },
      { kind: 'column', field: f('a'), alias: null, cast: null },
    ]);
    expect(() => parseQuery('select=a,tasks(id')).toThrow(expect.objectContaining({ code: 'PGRST100' }));
    expect(() => parseQuery('select=a,tasks(id))x')).not.toThrow();
  });
});

describe('headers', () => {
  it('reads Prefer (first occurrence wins), Accept and Range', () => {
    expect(
      parsePrefer('return=representation, count=exact,return=minimal, tx=rollback, bogus=1, max-affected=5'),
    ).toMatchObject({
      return: 'representation',
      count: 'exact',
      tx: 'rollback',
      maxAffected: 5,
      invalid: ['bogus=1'],
    });
    expect(parseAccept('application/vnd.pgrst.object+json')).toBe('object');
    expect(parseAccept('text/csv, application/json')).toBe('csv');
    // PostgREST's order: q-value first, then specificity (stars count down), else as sent.
    expect(parseAccept('application/json;q=0.5, text/csv')).toBe('csv');
    expect(parseAccept('*/*, text/csv')).toBe('csv');
    expect(acceptEntries('text/html, */*;q=0.8, image/png; q=0.9, application/xml')).toEqual([
      'text/html',
      'application/xml',
      'image/png',
      '*/*',
    ]);
    expect(acceptEntries('')).toEqual(['*/*']);
    expect(() => parseAccept('image/png')).toThrow(expect.objectContaining({ code: 'PGRST107', status: 406 }));
    expect(parseRange('0-24')).toEqual({ offset: 0, limit: 25 });
    expect(parseRange('10-')).toEqual({ offset: 10, limit: null });
  });
});

describe('round trips (fast-check)', () => {
  const ident = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/);
  const name = fc.oneof(
    ident,
    fc.string({ minLength: 1, maxLength: 8 }).filter((s) => s.trim() === s && !/["\\]/.test(s)),
  );
  const column = fc.record({
    kind: fc.constant('column' as const),
    field: name.map((n) => ({ name: n, jsonPath: [] })),
    alias: fc.option(ident, { nil: null }),
    cast: fc.option(fc.constantFrom('text', 'int'), { nil: null }),
  });
  const select: fc.Arbitrary<any[]> = fc.letrec((tie) => ({
    items: fc.array(
      fc.oneof(
        { depthSize: 'small' },
        column,
        fc.constant({ kind: 'star' as const }),
        fc.record({
          kind: fc.constant('embed' as const),
          name: ident,
          alias: fc.option(ident, { nil: null }),
          hint: fc.option(ident, { nil: null }),
          join: fc.constantFrom(null, 'inner', 'left'),
          spread: fc.constant(false),
          select: tie('items') as fc.Arbitrary<any[]>,
        }),
      ),
      { minLength: 1, maxLength: 4 },
    ),
  })).items as fc.Arbitrary<any[]>;

  it('select: parse(print(tree)) = tree', () => {
    fc.assert(
      fc.property(select, (tree) => {
        expect(parseSelect(printSelect(tree))).toEqual(tree);
      }),
      { numRuns: 300 },
    );
  });

  it('order: parse(print(terms)) = terms', () => {
    const term = fc.record({
      kind: fc.constant('order' as const),
      relation: fc.option(ident, { nil: null }),
      field: ident.map((n) => ({ name: n, jsonPath: [] })),
      dir: fc.constantFrom(null, 'asc', 'desc'),
      nulls: fc.constantFrom(null, 'first', 'last'),
    });
    fc.assert(
      fc.property(fc.array(term, { minLength: 1, maxLength: 4 }), (terms) => {
        expect(parseOrder(printOrder(terms as any))).toEqual(terms);
      }),
    );
  });

  it('logic trees: print(parse(print(parse(x)))) is stable', () => {
    const value = fc.string({ maxLength: 6 });
    const leaf = fc
      .tuple(ident, fc.constantFrom('eq', 'neq', 'lt', 'like', 'in'), value, fc.boolean())
      .map(
        ([c, op, v, neg]) =>
          `${c}.${neg ? 'not.' : ''}${op}.` +
          (op === 'in' ? `("${v.replace(/["\\]/g, '\\$&')}")` : `"${v.replace(/["\\]/g, '\\$&')}"`),
      );
    const tree: fc.Arbitrary<string> = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc
          .tuple(
            fc.boolean(),
            fc.constantFrom('and', 'or'),
            fc.array(tie('node') as fc.Arbitrary<string>, { minLength: 1, maxLength: 3 }),
          )
          .map(([neg, op, xs]) => `${neg ? 'not.' : ''}${op}(${xs.join(',')})`),
      ),
    })).node as fc.Arbitrary<string>;
    fc.assert(
      fc.property(fc.array(tree, { minLength: 1, maxLength: 3 }), (items) => {
        const once = printCondition(parseLogic('or', false, `(${items.join(',')})`));
        const twice = printCondition(parseLogic('or', false, once.slice(2)));
        expect(twice).toBe(once);
      }),
    );
  });
});

it('keeps "->" inside a quoted column name', () => {
  expect(parseField('"a->b"->>k')).toEqual({ name: 'a->b', jsonPath: [{ arrow: '->>', key: 'k', index: false }] });
});

// PostgREST's parse errors, where the suite checks their words (QuerySpec, AndOrParamsSpec, InsertSpec,
// JsonOperatorSpec, SpreadQueriesSpec).
describe("parse errors and leniencies as PostgREST's", () => {
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (e) {
      const { message, details } = e as { message: string; details: string };
      return { message, details };
    }
    throw new Error('no error');
  };
  it('a filter without an operator', () => {
    expect(refusal(() => parseFilter(f('id'), '0'))).toEqual({
      message: '"failed to parse filter (0)" (line 1, column 1)',
      details: 'unexpected "0" expecting "not" or operator (eq, gt, ...)',
    });
  });
  it('an order modifier with more after it', () => {
    expect(refusal(() => parseOrder('id.asc.nullslasttt'))).toEqual({
      message: '"failed to parse order (id.asc.nullslasttt)" (line 1, column 17)',
      details: `unexpected 't' expecting "," or end of input`,
    });
  });
  it('an empty logic tree', () => {
    expect(refusal(() => parseLogic('or', false, '()'))).toEqual({
      message: '"failed to parse logic tree (())" (line 1, column 4)',
      details:
        'unexpected ")" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)',
    });
  });
  it('a blank columns parameter', () => {
    expect(refusal(() => parseQuery('columns='))).toEqual({
      message: '"failed to parse columns parameter ()" (line 1, column 1)',
      details: 'unexpected end of input expecting field name (* or [a..z0..9_$])',
    });
  });
  it('a negative JSON index without digits', () => {
    expect(refusal(() => parseSelect('data->>--34'))).toEqual({
      message: '"failed to parse select parameter (data->>--34)" (line 1, column 9)',
      details: 'unexpected "-" expecting digit',
    });
  });
  it('a JSON key starting with a reserved character', () => {
    expect(refusal(() => parseSelect('data->(x->>y'))).toEqual({
      message: '"failed to parse select parameter (data->(x->>y)" (line 1, column 7)',
      details: 'unexpected "(" expecting "-", digit or any non reserved character different from: .,>()',
    });
  });
  it('reads up to a parenthesis that closes nothing, and logic trees with white space', () => {
    expect(parseSelect('a,b(c))')).toEqual(parseSelect('a,b(c)'));
    expect(parseLogic('and', false, '(id.eq.1,id.neq.2))')).toEqual(parseLogic('and', false, '(id.eq.1,id.neq.2)'));
    expect(parseLogic('and', false, '( or ( id.eq.2 , id.eq.3 ) )')).toEqual(
      parseLogic('and', false, '(or(id.eq.2,id.eq.3))'),
    );
  });
});
