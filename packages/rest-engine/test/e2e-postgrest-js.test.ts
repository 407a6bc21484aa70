// End to end: @supabase/postgrest-js over HTTP against the engine on the fixture schema, asserting whole responses.
import { PostgrestClient } from '@supabase/postgrest-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveEngine } from './http-server.js';
import { setup, USER_A, USER_B, type Harness } from './helpers.js';

let h: Harness;
let server: Awaited<ReturnType<typeof serveEngine>>;
let anon: PostgrestClient<any, any, any>;
let userA: PostgrestClient<any, any, any>;
let userB: PostgrestClient<any, any, any>;

const client = (claims?: object) =>
  new PostgrestClient<any, any, any>(server.url, {
    headers: claims ? { 'x-test-claims': JSON.stringify(claims) } : {},
  });

beforeAll(async () => {
  h = await setup({ maxRows: 100 });
  server = await serveEngine(h.engine);
  anon = client();
  userA = client(USER_A);
  userB = client(USER_B);
});
afterAll(async () => {
  await server.close();
  await h.close();
});

describe('reads', () => {
  it('selects columns with filters, order and limit', async () => {
    const r = await anon.from('projects').select('id,name').gte('id', 1).lte('id', 2).order('id', { ascending: false });
    expect(r).toMatchObject({
      error: null,
      status: 200,
      count: null,
      data: [
        { id: 2, name: 'Bridge plans' },
        { id: 1, name: 'Apollo engine' },
      ],
    });
  });

  it('embeds with aliases and hints, to-one and to-many, nested', async () => {
    const r = await anon
      .from('projects')
      .select('name,owner:users!owner_id(id,email),reviewer:users!reviewer_id(name),tasks(title,assignee:users(name))')
      .eq('id', 1)
      .order('id', { referencedTable: 'tasks' });
    expect(r.error).toBeNull();
    expect(r.data).toEqual([
      {
        name: 'Apollo engine',
        owner: { id: 1, email: 'ada@example.com' },
        reviewer: { name: 'Bob' },
        tasks: [
          { title: 'Design nozzle', assignee: { name: 'Bob' } },
          { title: 'Test fire', assignee: { name: 'Cy' } },
          { title: 'Write report', assignee: null },
        ],
      },
    ]);
  });

  it('embeds many-to-many through the junction and star with nested embeds', async () => {
    const r = await anon.from('projects').select('*,tags(name),tasks(*,project:projects(name))').eq('id', 2).single();
    expect(r.error).toBeNull();
    expect(r.status).toBe(200);
    expect(r.data.tags).toEqual([{ name: 'beta' }]);
    expect(r.data['display name']).toBe('Bridge, "quoted"');
    expect(r.data.tasks).toEqual([
      {
        id: 4,
        project_id: 2,
        title: 'Survey site',
        done: true,
        priority: 1,
        assignee_id: 2,
        project: { name: 'Bridge plans' },
      },
    ]);
  });

  it('renders timestamps in the Prefer timezone, failing for an unknown zone', async () => {
    const tokyo = await anon.from('users').select('created_at').eq('id', 1).setHeader('Prefer', 'timezone=Asia/Tokyo');
    expect(tokyo).toMatchObject({ error: null, status: 200, data: [{ created_at: '2024-01-01T09:00:00+09:00' }] });
    const unknown = await anon
      .from('users')
      .select('created_at')
      .eq('id', 1)
      .setHeader('Prefer', 'timezone=Nowhere/Land');
    expect(unknown).toMatchObject({
      data: null,
      status: 400,
      error: {
        code: '22023',
        message: 'invalid value for parameter "TimeZone": "Nowhere/Land"',
        details: null,
        hint: null,
      },
    });
  });

  it('spreads to-many embeds into one array per column (PostgREST 13)', async () => {
    const r = await anon
      .from('projects')
      .select('name,...tasks(titles:title,priority,assignee:users(name)),...tags(tag_names:name)')
      .order('id')
      .order('id', { referencedTable: 'tasks' })
      .order('name', { referencedTable: 'tags' });
    expect(r).toMatchObject({ error: null, status: 200 });
    expect(r.data).toEqual([
      {
        name: 'Apollo engine',
        titles: ['Design nozzle', 'Test fire', 'Write report'],
        priority: [1, 2, null],
        assignee: [{ name: 'Bob' }, { name: 'Cy' }, null],
        tag_names: ['alpha', 'beta'],
      },
      {
        name: 'Bridge plans',
        titles: ['Survey site'],
        priority: [1],
        assignee: [{ name: 'Bob' }],
        tag_names: ['beta'],
      },
      { name: 'Cellar door', titles: ['Fix hinge'], priority: [3], assignee: [{ name: 'Ada' }], tag_names: [] },
    ]);
    // Filters on the spread embed, !inner and a star.
    const inner = await anon
      .from('projects')
      .select('id,...project_tags!inner(*)')
      .order('id')
      .order('tag_id', { referencedTable: 'project_tags' });
    expect(inner).toMatchObject({
      error: null,
      status: 200,
      data: [
        { id: 1, project_id: [1, 1], tag_id: [1, 2] },
        { id: 2, project_id: [2], tag_id: [2] },
      ],
    });
    const open = await anon
      .from('projects')
      .select('id,...tasks(title)')
      .eq('tasks.done', false)
      .not('tasks', 'is', null)
      .order('id');
    expect(open).toMatchObject({
      error: null,
      data: [
        { id: 1, title: ['Test fire', 'Write report'] },
        { id: 3, title: ['Fix hinge'] },
      ],
    });
    // `rel=is.null` on a to-one spread: the task nobody is assigned to.
    const unassigned = await anon.from('tasks').select('id,...users(name)').is('users', null);
    expect(unassigned).toMatchObject({ error: null, status: 200, data: [{ id: 3, name: null }] });
  });

  it('counts exactly with Content-Range and ranges', async () => {
    const r = await anon.from('tasks').select('id', { count: 'exact' }).order('id').range(1, 2);
    expect(r).toMatchObject({ error: null, status: 206, count: 5, data: [{ id: 2 }, { id: 3 }] });
    const estimated = await anon.from('tasks').select('id', { count: 'estimated' }).order('id').range(0, 1);
    // Under maxRows: exact.
    expect(estimated).toMatchObject({ error: null, status: 206, count: 5, data: [{ id: 1 }, { id: 2 }] });
    const head = await anon.from('tasks').select('*', { count: 'exact', head: true });
    expect(head).toMatchObject({ error: null, status: 200, count: 5, data: null });
  });

  it('answers an ambiguous embed with 300 and PGRST201', async () => {
    const r = await anon.from('projects').select('users(id)');
    expect(r.status).toBe(300);
    expect(r.error?.code).toBe('PGRST201');
    expect(r.error?.details).toHaveLength(2);
  });

  it('refuses two embeds under one name with 42712, and answers them when aliases tell them apart', async () => {
    const twice = await anon.from('projects').select('users!owner_id(id), users!reviewer_id(id)');
    expect(twice).toMatchObject({
      status: 400,
      data: null,
      error: { code: '42712', message: 'table name "projects_users_1" specified more than once' },
    });
    const aliased = await anon
      .from('projects')
      .select('id, owner:users!owner_id(id), reviewer:users!reviewer_id(id)')
      .order('id')
      .limit(1);
    expect(aliased.error).toBeNull();
    expect(Object.keys(aliased.data![0])).toEqual(['id', 'owner', 'reviewer']);
  });

  it('single() and maybeSingle()', async () => {
    const none = await anon.from('projects').select('id').eq('id', 999).single();
    expect(none).toMatchObject({
      status: 406,
      data: null,
      error: {
        code: 'PGRST116',
        details: 'The result contains 0 rows',
        hint: null,
        message: 'Cannot coerce the result to a single JSON object',
      },
    });
    const maybe = await anon.from('projects').select('id').eq('id', 999).maybeSingle();
    expect(maybe).toMatchObject({ status: 200, data: null, error: null });
  });

  it('filters with or, in, is, not, ilike, contains and json paths', async () => {
    const r = await anon
      .from('projects')
      .select('id')
      .or('budget.gt.500,mood.eq.sad')
      .in('id', [1, 2, 3])
      .not('name', 'is', null)
      .ilike('name', '%e%')
      .order('id');
    expect(r.data).toEqual([{ id: 1 }, { id: 3 }]);
    const c = await anon.from('projects').select('id').contains('tags', ['space']);
    expect(c.data).toEqual([{ id: 1 }]);
    const j = await anon.from('projects').select('id,color:meta->>color,level:meta->level').eq('meta->>color', 'blue');
    expect(j.data).toEqual([{ id: 2, color: 'blue', level: 1 }]);
    const fts = await anon.from('projects').select('id').textSearch('search', 'apollo', { config: 'english' });
    expect(fts.data).toEqual([{ id: 1 }]);
  });

  it('reports a missing table and column', async () => {
    const t = await anon.from('nope').select();
    expect(t).toMatchObject({ status: 404, error: { code: 'PGRST205' } });
    const c = await anon.from('projects').select('nope');
    expect(c).toMatchObject({ status: 400, error: { code: '42703' } });
  });
});

describe('writes', () => {
  it('inserts one row and an array with return=representation', async () => {
    const one = await userA.from('tags').insert({ name: 'delta' }).select().single();
    expect(one).toMatchObject({ status: 201, error: null, data: { name: 'delta' } });
    const many = await userA
      .from('tags')
      .insert([{ name: 'e1' }, { name: 'e2' }])
      .select('name');
    expect(many).toMatchObject({ status: 201, error: null, data: [{ name: 'e1' }, { name: 'e2' }] });
    const minimal = await userA.from('tags').insert({ name: 'e3' });
    expect(minimal).toMatchObject({ status: 201, error: null, data: null });
  });

  it('updates and deletes with filters', async () => {
    const up = await userA.from('tags').update({ name: 'e1-renamed' }).eq('name', 'e1').select('name');
    expect(up).toMatchObject({ status: 200, error: null, data: [{ name: 'e1-renamed' }] });
    const del = await userA.from('tags').delete().eq('name', 'e2');
    expect(del).toMatchObject({ status: 204, error: null, data: null });
    const refused = await userA.from('tags').delete();
    expect(refused).toMatchObject({ status: 400, error: { code: '21000' } });
  });

  it('upserts with on_conflict and merge or ignore', async () => {
    const merged = await userA.from('tags').upsert({ name: 'alpha' }, { onConflict: 'name' }).select('id,name');
    // "alpha" exists: updated, nothing inserted, so 200 (PostgREST 12+); ignoring it stays 201, as in PostgREST.
    expect(merged).toMatchObject({ status: 200, error: null, data: [{ id: 1, name: 'alpha' }] });
    const ignored = await userA
      .from('tags')
      .upsert({ name: 'alpha' }, { onConflict: 'name', ignoreDuplicates: true })
      .select('id');
    expect(ignored).toMatchObject({ status: 201, error: null, data: [] });
    const inserted = await userA.from('tags').upsert({ name: 'fresh' }, { onConflict: 'name' }).select('name');
    expect(inserted).toMatchObject({ status: 201, error: null, data: [{ name: 'fresh' }] });
  });

  it('maps constraint violations and permissions', async () => {
    const dup = await userA.from('tags').insert({ name: 'alpha' });
    expect(dup).toMatchObject({ status: 409, error: { code: '23505' } });
    const fk = await userA.from('tasks').insert({ project_id: 999, title: 'x' });
    expect(fk).toMatchObject({ status: 409, error: { code: '23503' } });
    const anonWrite = await anon.from('tags').insert({ name: 'x' });
    expect(anonWrite).toMatchObject({ status: 401, error: { code: '42501' } });
  });

  it('row-level security decides what each user sees and writes', async () => {
    const a = await userA.from('notes').select('body').order('id');
    expect(a.data).toEqual([{ body: 'note of a' }, { body: 'second of a' }]);
    const b = await userB.from('notes').select('body', { count: 'exact' });
    expect(b).toMatchObject({ count: 1, data: [{ body: 'note of b' }] });
    const forged = await userB.from('notes').insert({ owner: 'user-a', body: 'forged' });
    expect(forged).toMatchObject({ status: 403, error: { code: '42501' } });
    const mine = await userB.from('notes').insert({ body: 'mine' }).select('owner,body').single();
    expect(mine).toMatchObject({ status: 201, data: { owner: 'user-b', body: 'mine' } });
  });
});

describe('rpc', () => {
  it('calls with named arguments, scalars, SETOF, void and GET', async () => {
    expect(await anon.rpc('add_numbers', { a: 2, b: 3 })).toMatchObject({ status: 200, data: 5, error: null });
    expect(await anon.rpc('add_numbers', { a: 2 }, { get: true })).toMatchObject({ status: 200, data: 3 });
    expect((await anon.rpc('numbers', { n: 3 })).data).toEqual([1, 2, 3]);
    expect(await userA.rpc('do_nothing')).toMatchObject({ status: 204, data: null, error: null });
    const set = await anon.rpc('projects_of', { p_owner: 1 }).select('id,owner:users!owner_id(name)').order('id');
    expect(set.data).toEqual([
      { id: 1, owner: { name: 'Ada' } },
      { id: 3, owner: { name: 'Ada' } },
    ]);
    const one = await anon.rpc('project_by_id', { p_id: 2 }).select('name');
    expect(one.data).toEqual({ name: 'Bridge plans' });
    expect((await userA.rpc('whoami')).data).toBe('user-a');
    expect((await anon.rpc('echo', { any: ['thing'] })).data).toEqual({ any: ['thing'] });
  });

  it('reports unknown and ambiguous functions and raised errors', async () => {
    expect(await anon.rpc('nope')).toMatchObject({ status: 404, error: { code: 'PGRST202' } });
    expect(await anon.rpc('overloaded', { x: 1 })).toMatchObject({ status: 300, error: { code: 'PGRST203' } });
    expect(await userA.rpc('fail_with', { code: 'payment' })).toMatchObject({
      status: 402,
      error: { code: 'PT402', message: 'Payment Required' },
    });
    expect(await userA.rpc('fail_with', { code: 'x' })).toMatchObject({
      status: 400,
      error: { code: 'P0001', message: 'custom failure', details: 'some detail', hint: 'a hint' },
    });
  });
});

describe('values reach Postgres as the text the client sent', () => {
  it('compares json, booleans and timestamps as PostgREST does', async () => {
    const j = await anon.from('projects').select('id').eq('meta->level', 1);
    expect(j).toMatchObject({ error: null, data: [{ id: 2 }] });
    const b = await anon.from('projects').select('id').eq('is_active', 'false');
    expect(b.data).toEqual([{ id: 3 }]);
    const t = await anon.from('users').select('id').lt('created_at', 'infinity').eq('id', 1);
    expect(t).toMatchObject({ error: null, data: [{ id: 1 }] });
    const c = await anon.from('projects').select('id').contains('meta', { color: 'red' });
    expect(c.data).toEqual([{ id: 1 }]);
  });
});
