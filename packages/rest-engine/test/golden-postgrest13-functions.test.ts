// Golden cases for the PostgREST 13 behaviours the postgrest-js suites check, part two: computed fields and
// relationships, RPC parameters and candidates, plan output, GeoJSON and error texts. Each pins {sql, params} and
// what Postgres answers (status, Content-Range, rows).
import { describe, expect, it } from 'vitest';
import { compile } from '../src/compile/statement-compiler.js';
import { parse } from '../src/parse/request-parser.js';
import { plan } from '../src/plan/planner.js';
import { GOLDEN_OPTIONS, goldenSuite, setup, USER_A } from './helpers.js';

const { golden, harness: h } = goldenSuite({ aggregatesEnabled: true, txRollbackAllowed: true, planEnabled: true });

describe('computed fields and relationships', () => {
  it('a function of the row selects like a column, also inside an embed', async () => {
    expect(await golden('GET', '/projects?select=name,tasks(title,task_label)&id=eq.2')).toMatchInlineSnapshot(`
      {
        "params": [
          "2",
        ],
        "range": "0-0/*",
        "rows": [
          {
            "name": "Bridge plans",
            "tasks": [
              {
                "task_label": "SURVEY SITE",
                "title": "Survey site",
              },
            ],
          },
        ],
        "sql": "SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."name" AS "name", e0_1.body AS "tasks" FROM "public"."projects" t0 LEFT JOIN LATERAL (SELECT coalesce(json_agg(_e), '[]') AS body FROM (SELECT t0_1."title" AS "title", "public"."task_label"(t0_1) AS "task_label" FROM "public"."tasks" t0_1 WHERE t0_1."project_id" = t0."id") _e) e0_1 ON TRUE WHERE t0."id" = $1) _t",
        "status": 200,
      }
    `);
  });
  it('functions returning rows embed like relationships: SETOF to-many, one row to-one', async () => {
    expect(
      await golden('GET', '/projects?select=name,open_tasks(title),owner_of(email)&id=eq.1'),
    ).toMatchInlineSnapshot(`
      {
        "params": [
          "1",
        ],
        "range": "0-0/*",
        "rows": [
          {
            "name": "Apollo engine",
            "open_tasks": [
              {
                "title": "Test fire",
              },
              {
                "title": "Write report",
              },
            ],
            "owner_of": {
              "email": "ada@example.com",
            },
          },
        ],
        "sql": "SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."name" AS "name", e0_1.body AS "open_tasks", e0_2.body AS "owner_of" FROM "public"."projects" t0 LEFT JOIN LATERAL (SELECT coalesce(json_agg(_e), '[]') AS body FROM (SELECT t0_1."title" AS "title" FROM "public"."open_tasks"(t0) t0_1) _e) e0_1 ON TRUE LEFT JOIN LATERAL (SELECT row_to_json(_e) AS body FROM (SELECT t0_2."email" AS "email" FROM "public"."owner_of"(t0) t0_2) _e) e0_2 ON TRUE WHERE t0."id" = $1) _t",
        "status": 200,
      }
    `);
  });
});

describe('RPC', () => {
  it('rpc: table-valued with named arguments, scalar by GET', async () => {
    expect(await golden('POST', '/rpc/projects_of?select=id&order=id', {}, { p_owner: 1 })).toMatchInlineSnapshot(`
      {
        "params": [
          "{"p_owner":1}",
        ],
        "range": "0-1/*",
        "rows": [
          {
            "id": 1,
          },
          {
            "id": 3,
          },
        ],
        "sql": "SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."id" AS "id" FROM json_to_record($1::text::json) AS _args("p_owner" integer) CROSS JOIN LATERAL "public"."projects_of"("p_owner" := _args."p_owner") t0 ORDER BY t0."id") _t",
        "status": 200,
      }
    `);
    expect(await golden('GET', '/rpc/add_numbers?a=1&b=2')).toMatchInlineSnapshot(`
      {
        "params": [
          "{"a":"1","b":"2"}",
        ],
        "range": "0-0/*",
        "rows": 3,
        "sql": "SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce((json_agg(_t.pgrst_scalar)->0)::text, 'null') AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT "public"."add_numbers"("a" := _args."a", "b" := _args."b") AS pgrst_scalar FROM json_to_record($1::text::json) AS _args("a" integer, "b" integer) OFFSET 0) _t",
        "status": 200,
      }
    `);
  });
  it('a single unnamed text parameter takes the value of the key ""', async () => {
    expect(await golden('POST', '/rpc/shout', {}, { '': 'hi' })).toMatchInlineSnapshot(`
      {
        "params": [
          "hi",
        ],
        "range": "0-0/*",
        "rows": "HI",
        "sql": "SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce((json_agg(_t.pgrst_scalar)->0)::text, 'null') AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT "public"."shout"($1::text::text) AS pgrst_scalar OFFSET 0) _t",
        "status": 200,
      }
    `);
  });
  it('a function with an unnamed integer parameter is not callable; a misspelt name gets the nearest', async () => {
    const hidden = await h().req('POST', '/rpc/hidden_int', { body: { '': 1 }, claims: USER_A });
    const misspelt = await h().req('POST', '/rpc/shoot', { body: {}, claims: USER_A });
    expect([hidden.status, hidden.json, misspelt.status, misspelt.json]).toMatchInlineSnapshot(`
      [
        404,
        {
          "code": "PGRST202",
          "details": "Searched for the function public.hidden_int with parameter  or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
          "hint": null,
          "message": "Could not find the function public.hidden_int() in the schema cache",
        },
        404,
        {
          "code": "PGRST202",
          "details": "Searched for the function public.shoot without parameters or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
          "hint": "Perhaps you meant to call the function public.shout",
          "message": "Could not find the function public.shoot without parameters in the schema cache",
        },
      ]
    `);
  });
  it('PGRST203 lists the candidates by parameter count, then signature', async () => {
    const res = await h().req('POST', '/rpc/overloaded', { body: { x: 1 }, claims: USER_A });
    expect({ status: res.status, body: res.json }).toMatchInlineSnapshot(`
      {
        "body": {
          "code": "PGRST203",
          "details": null,
          "hint": "Try renaming the parameters or the function itself in the database so function overloading can be resolved",
          "message": "Could not choose the best candidate function between: public.overloaded(x => integer), public.overloaded(x => text)",
        },
        "status": 300,
      }
    `);
  });
});

describe('media', () => {
  it('plan output: EXPLAIN of the statement, in the format and with the options asked for', async () => {
    const accept = 'application/vnd.pgrst.plan+text; for="application/json"; options=verbose';
    const input = { method: 'GET', path: '/tasks', search: 'select=id&id=eq.1', headers: { accept } };
    expect(compile(plan(parse(input), h().engine.schemaCache, GOLDEN_OPTIONS), null).main).toMatchInlineSnapshot(`
      {
        "params": [
          "1",
        ],
        "sql": "EXPLAIN (FORMAT TEXT, VERBOSE) SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."id" AS "id" FROM "public"."tasks" t0 WHERE t0."id" = $1) _t",
      }
    `);
    const res = await h().req('GET', '/tasks?select=id&id=eq.1', { headers: { accept }, claims: USER_A });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.pgrst.plan+text; for="application/json"; charset=utf-8');
    expect(res.text).toMatch(/^Aggregate {2}\(cost=/);
  });
  it('plan output is not acceptable unless planEnabled', async () => {
    const other = await setup({ planEnabled: false });
    try {
      const accept = 'application/vnd.pgrst.plan+json';
      const res = await other.req('GET', '/tasks?select=id', { headers: { accept }, claims: USER_A });
      expect({ status: res.status, body: res.json }).toMatchInlineSnapshot(`
        {
          "body": {
            "code": "PGRST107",
            "details": null,
            "hint": null,
            "message": "None of these media types are available: application/vnd.pgrst.plan+json",
          },
          "status": 406,
        }
      `);
    } finally {
      await other.close();
    }
  });
  it('GeoJSON: one FeatureCollection built by PostGIS (run by the conformance suite, which has PostGIS)', () => {
    const input = { method: 'GET', path: '/tasks', search: 'select=id', headers: { accept: 'application/geo+json' } };
    expect(compile(plan(parse(input), h().engine.schemaCache, GOLDEN_OPTIONS), null).main).toMatchInlineSnapshot(`
      {
        "params": [],
        "sql": "SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, json_build_object('type', 'FeatureCollection', 'features', coalesce(json_agg(ST_AsGeoJSON(_t)::json), '[]'))::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."id" AS "id" FROM "public"."tasks" t0) _t",
      }
    `);
  });
});

describe('error texts as PostgREST 13', () => {
  it('PGRST116, PGRST201 details and 42703 inside an embed', async () => {
    const single = await h().req('GET', '/tags', { headers: { accept: 'application/vnd.pgrst.object+json' } });
    const ambiguous = await h().req('GET', '/projects?select=users(name)');
    const alias = await h().req('GET', '/projects?select=tasks(nope)');
    expect([single.json, ambiguous.json, alias.json]).toMatchInlineSnapshot(`
      [
        {
          "code": "PGRST116",
          "details": "The result contains 3 rows",
          "hint": null,
          "message": "Cannot coerce the result to a single JSON object",
        },
        {
          "code": "PGRST201",
          "details": [
            {
              "cardinality": "many-to-one",
              "embedding": "projects with users",
              "relationship": "projects_owner_id_fkey using projects(owner_id) and users(id)",
            },
            {
              "cardinality": "many-to-one",
              "embedding": "projects with users",
              "relationship": "projects_reviewer_id_fkey using projects(reviewer_id) and users(id)",
            },
          ],
          "hint": "Try changing 'users' to one of the following: 'users!projects_owner_id_fkey', 'users!projects_reviewer_id_fkey'. Find the desired relationship in the 'details' key.",
          "message": "Could not embed because more than one relationship was found for 'projects' and 'users'",
        },
        {
          "code": "42703",
          "details": null,
          "hint": null,
          "message": "column tasks_1.nope does not exist",
        },
      ]
    `);
  });
});
