// Aggregates in embeds and spreads, as PostgREST's own suite checks them (AggregateFunctionsSpec), on shapes of its
// fixtures (test/aggregate-fixture): an aggregate inside a to-one spread is computed by the level the spread's
// columns are lifted into (through nested spreads, up to the root or a JSON embed), grouped by that level's other
// values, JSON embeds among them; casts before an aggregate; aggregates in to-many spreads are refused. Also
// `or=(rel.not.is.null,...)` across embeds, related orders (only on embedded relations, also computed ones;
// RelatedQueriesSpec) and the embed PGRST108 names (QuerySpec).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE, type Harness, SERVICE, setup } from './helpers.js';

const AGGREGATE_FIXTURE = [
  ...FIXTURE,
  { name: 'rest-engine-aggregate-shapes', dir: join(dirname(fileURLToPath(import.meta.url)), 'aggregate-fixture') },
];

let h: Harness;
beforeAll(async () => {
  h = await setup({ aggregatesEnabled: true }, 2, AGGREGATE_FIXTURE);
});
afterAll(async () => {
  await h?.close();
});

const get = (path: string) => h.req('GET', path, { claims: SERVICE });
const byJson = (rows: unknown[]) => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe('aggregates in to-one spreads', () => {
  it('are computed over the parent rows, grouped by the other spread columns', async () => {
    const r = await get('/machines?select=...kinds(name),...machine_costs(cost.sum())&order=kinds(name)');
    expect(r.status).toBe(200);
    expect(r.json).toEqual([
      { name: 'Lathe', sum: 50 },
      { name: 'Press', sum: 150 },
    ]);
  });
  it('only aggregates: one row for all the parent rows', async () => {
    const r = await get('/machines?select=...machine_costs(total:cost.sum())');
    expect(r.json).toEqual([{ total: 200 }]);
  });
  it('climb through nested spreads to the root', async () => {
    const r = await get('/crew_machines?select=crew_id,...machines(...machine_costs(total:cost.sum()))&order=crew_id');
    expect(r.status).toBe(200);
    expect(r.json).toEqual([
      { crew_id: 1, total: 170 },
      { crew_id: 2, total: 50 },
    ]);
  });
  it('count() on several levels at once, ordered by a column the spread lifts under an alias', async () => {
    const r = await get(
      '/crew_machines?select=...machines(plant:plant_id,machines:count(),...machine_costs(costed:cost.count()))' +
        '&order=machines(plant)',
    );
    expect(r.status).toBe(200);
    expect(r.json).toEqual([
      { plant: 1, machines: 2, costed: 2 },
      { plant: 2, machines: 3, costed: 3 },
      { plant: 3, machines: 1, costed: 0 },
    ]);
  });
  it('stop at a JSON embed, which aggregates its own rows', async () => {
    const r = await get(
      '/crews?select=name,crew_machines(...machines(...kinds(name),...machine_costs(cost.sum())))&order=id',
    );
    expect(r.status).toBe(200);
    expect(r.json.map((c: { name: string; crew_machines: unknown[] }) => [c.name, byJson(c.crew_machines)])).toEqual([
      [
        'Day',
        [
          { name: 'Lathe', sum: 50 },
          { name: 'Press', sum: 120 },
        ],
      ],
      [
        'Night',
        [
          { name: 'Lathe', sum: null },
          { name: 'Press', sum: 50 },
        ],
      ],
      ['Idle', []],
    ]);
  });
  it('group by the JSON embeds beside them', async () => {
    const r = await get('/machines?select=kinds(name),total:id.count()');
    expect(r.status).toBe(200);
    expect(byJson(r.json)).toEqual([
      { kinds: { name: 'Lathe' }, total: 2 },
      { kinds: { name: 'Press' }, total: 3 },
    ]);
    const spread = await get('/crew_machines?select=...machines(kinds(name),...machine_costs(cost.max()))');
    expect(spread.status).toBe(200);
    expect(byJson(spread.json)).toEqual([
      { kinds: { name: 'Lathe' }, max: 50 },
      { kinds: { name: 'Press' }, max: 100 },
    ]);
  });
  it('are refused in to-many spreads (PGRST127)', async () => {
    const r = await get('/plants?select=name,...plant_sheds(size.sum())');
    expect(r.status).toBe(400);
    expect(r.json).toEqual({
      code: 'PGRST127',
      message: 'Feature not implemented',
      details: 'Aggregates are not implemented for one-to-many or many-to-many spreads.',
      hint: null,
    });
  });
});

describe('casts before an aggregate', () => {
  it('cast the input, then the result', async () => {
    expect((await get('/machine_costs?select=extra->>n::int.sum()')).json).toEqual([{ sum: 10 }]);
    expect((await get('/machine_costs?select=s:extra->>n::int.sum()::text')).json).toEqual([{ s: '10' }]);
  });
});

describe('null checks on embeds inside logic trees', () => {
  it('or=(rel.not.is.null,other.not.is.null) across embeds', async () => {
    const r = await get(
      '/machines?select=id,kinds(),machine_costs()&kinds.name=eq.Lathe&machine_costs.cost=gt.60' +
        '&or=(kinds.not.is.null,machine_costs.not.is.null)&order=id',
    );
    expect(r.status).toBe(200);
    expect(r.json).toEqual([{ id: 1 }, { id: 2 }, { id: 5 }]);
    const counted = await h.req('GET', '/machines?select=id,kinds()&kinds.name=eq.Lathe&or=(kinds.is.null)', {
      claims: SERVICE,
      headers: { prefer: 'count=exact' },
    });
    expect(counted.headers['content-range']).toBe('0-2/3');
  });
});

describe('related orders', () => {
  it('by a to-one computed relationship', async () => {
    const r = await get('/machines?select=id,machine_plant(name)&order=machine_plant(name).desc,id');
    expect(r.status).toBe(200);
    expect(r.json.map((m: { id: number }) => m.id)).toEqual([3, 4, 1, 2, 5]);
  });
  it('only by a relation the select embeds (PGRST108)', async () => {
    const r = await get('/machines?select=id,kinds(name)&order=plants(name)');
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      code: 'PGRST108',
      message: "'plants' is not an embedded resource in this request",
      hint: "Verify that 'plants' is included in the 'select' query parameter.",
    });
  });
});

describe('entries addressed to an embed the select lacks', () => {
  it('PGRST108 names the first segment of the path that is not embedded', async () => {
    const r = await get('/crews?select=id,crew_machines(machine_id,machines(name))&crew_machines.machinez.name=eq.M1');
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      code: 'PGRST108',
      message: "'machinez' is not an embedded resource in this request",
    });
  });
});
