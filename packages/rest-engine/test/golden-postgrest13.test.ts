// Golden cases for the PostgREST 13 behaviours the postgrest-js suites check, part one: embed targets, the
// self-reference default, aggregates in embeds, counts on writes and RPC, upsert status and identity defaults
// (part two: golden-postgrest13-functions). Each pins {sql, params} and what Postgres answers.
import { describe, expect, it } from 'vitest';
import { goldenSuite } from './helpers.js';

const { golden } = goldenSuite({ aggregatesEnabled: true, txRollbackAllowed: true });

describe('embed targets', () => {
  it('by the FK column: the row it references', async () => {
    expect(await golden('GET', '/tasks?select=title,project_id(name)&id=eq.1')).toMatchInlineSnapshot(`
      {
        "params": [
          "1",
        ],
        "range": "0-0/*",
        "rows": [
          {
            "project_id": {
              "name": "Apollo engine",
            },
            "title": "Design nozzle",
          },
        ],
        "sql": "SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."title" AS "title", e0_1.body AS "project_id" FROM "public"."tasks" t0 LEFT JOIN LATERAL (SELECT row_to_json(_e) AS body FROM (SELECT t0_1."name" AS "name" FROM "public"."projects" t0_1 WHERE t0_1."id" = t0."project_id") _e) e0_1 ON TRUE WHERE t0."id" = $1) _t",
        "status": 200,
      }
    `);
  });
  it('by the FK constraint name', async () => {
    expect(await golden('GET', '/projects?select=name,projects_owner_id_fkey(email)&id=eq.2')).toMatchInlineSnapshot(`
      {
        "params": [
          "2",
        ],
        "range": "0-0/*",
        "rows": [
          {
            "name": "Bridge plans",
            "projects_owner_id_fkey": {
              "email": "bob@example.com",
            },
          },
        ],
        "sql": "SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."name" AS "name", e0_1.body AS "projects_owner_id_fkey" FROM "public"."projects" t0 LEFT JOIN LATERAL (SELECT row_to_json(_e) AS body FROM (SELECT t0_1."email" AS "email" FROM "public"."users" t0_1 WHERE t0_1."id" = t0."owner_id") _e) e0_1 ON TRUE WHERE t0."id" = $1) _t",
        "status": 200,
      }
    `);
  });
  it('a self-reference without a hint embeds the children; through the FK column, the parent', async () => {
    expect(await golden('GET', '/users?select=name,users(name),manager_id(name)&id=eq.2')).toMatchInlineSnapshot(`
      {
        "params": [
          "2",
        ],
        "range": "0-0/*",
        "rows": [
          {
            "manager_id": {
              "name": "Ada",
            },
            "name": "Bob",
            "users": [
              {
                "name": null,
              },
            ],
          },
        ],
        "sql": "SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."name" AS "name", e0_1.body AS "users", e0_2.body AS "manager_id" FROM "public"."users" t0 LEFT JOIN LATERAL (SELECT coalesce(json_agg(_e), '[]') AS body FROM (SELECT t0_1."name" AS "name" FROM "public"."users" t0_1 WHERE t0_1."manager_id" = t0."id") _e) e0_1 ON TRUE LEFT JOIN LATERAL (SELECT row_to_json(_e) AS body FROM (SELECT t0_2."name" AS "name" FROM "public"."users" t0_2 WHERE t0_2."id" = t0."manager_id") _e) e0_2 ON TRUE WHERE t0."id" = $1) _t",
        "status": 200,
      }
    `);
  });
});

describe('aggregates inside embeds', () => {
  it('rel(count) counts each parent’s rows', async () => {
    expect(await golden('GET', '/projects?select=name,tasks(count)&order=id')).toMatchInlineSnapshot(`
      {
        "params": [],
        "range": "0-2/*",
        "rows": [
          {
            "name": "Apollo engine",
            "tasks": [
              {
                "count": 3,
              },
            ],
          },
          {
            "name": "Bridge plans",
            "tasks": [
              {
                "count": 1,
              },
            ],
          },
          {
            "name": "Cellar door",
            "tasks": [
              {
                "count": 1,
              },
            ],
          },
        ],
        "sql": "SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."name" AS "name", e0_1.body AS "tasks" FROM "public"."projects" t0 LEFT JOIN LATERAL (SELECT coalesce(json_agg(_e), '[]') AS body FROM (SELECT pg_catalog.count(*) AS "count" FROM "public"."tasks" t0_1 WHERE t0_1."project_id" = t0."id") _e) e0_1 ON TRUE ORDER BY t0."id") _t",
        "status": 200,
      }
    `);
  });
  it('an aggregate beside a to-one spread groups by the spread columns', async () => {
    expect(
      await golden('GET', '/tasks?select=priority.sum(),...projects(name)&project_id=eq.1'),
    ).toMatchInlineSnapshot(`
      {
        "params": [
          "1",
        ],
        "range": "0-0/*",
        "rows": [
          {
            "name": "Apollo engine",
            "sum": 3,
          },
        ],
        "sql": "SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT pg_catalog.sum(t0."priority") AS "sum", e0_1."name" FROM "public"."tasks" t0 LEFT JOIN LATERAL (SELECT t0_1."name" AS "name", 1 AS pgrst_rows FROM "public"."projects" t0_1 WHERE t0_1."id" = t0."project_id") e0_1 ON TRUE WHERE t0."project_id" = $1 GROUP BY e0_1."name") _t",
        "status": 200,
      }
    `);
  });
});

describe('counts, upserts and defaults', () => {
  it('count=exact on an insert: */N', async () => {
    expect(
      await golden('POST', '/tags?select=name', { prefer: 'count=exact,return=representation' }, [
        { name: 'n1' },
        { name: 'n2' },
      ]),
    ).toMatchInlineSnapshot(`
      {
        "params": [
          "[{"name":"n1"},{"name":"n2"}]",
        ],
        "range": "*/2",
        "rows": [
          {
            "name": "n1",
          },
          {
            "name": "n2",
          },
        ],
        "sql": "WITH pgrst_source AS (INSERT INTO "public"."tags" AS pgrst_t ("name") SELECT _r."name" FROM json_populate_recordset(NULL::"public"."tags", $1::text::json) _r RETURNING pgrst_t."name") SELECT pg_catalog.count(_t) AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."name" AS "name" FROM pgrst_source t0) _t",
        "status": 201,
      }
    `);
  });
  it('count=exact on an update: 0-(N-1)/N', async () => {
    expect(
      await golden(
        'PATCH',
        '/tasks?project_id=eq.1&select=id',
        { prefer: 'count=exact,return=representation' },
        {
          priority: 5,
        },
      ),
    ).toMatchInlineSnapshot(`
      {
        "params": [
          "{"priority":5}",
          "1",
        ],
        "range": "0-2/3",
        "rows": [
          {
            "id": 1,
          },
          {
            "id": 2,
          },
          {
            "id": 3,
          },
        ],
        "sql": "WITH pgrst_source AS (UPDATE "public"."tasks" AS pgrst_t SET "priority" = _r."priority" FROM json_populate_record(NULL::"public"."tasks", $1::text::json) _r WHERE pgrst_t."project_id" = $2 RETURNING pgrst_t."id") SELECT pg_catalog.count(_t) AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."id" AS "id" FROM pgrst_source t0) _t",
        "status": 200,
      }
    `);
  });
  it('count=exact on a scalar RPC: its one row', async () => {
    expect(await golden('GET', '/rpc/add_numbers?a=2&b=3', { prefer: 'count=exact' })).toMatchInlineSnapshot(`
      {
        "params": [
          "{"a":"2","b":"3"}",
        ],
        "range": "0-0/1",
        "rows": 5,
        "sql": "SELECT pg_catalog.count(_t) AS total, pg_catalog.count(_t) AS page_total, coalesce((json_agg(_t.pgrst_scalar)->0)::text, 'null') AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT "public"."add_numbers"("a" := _args."a", "b" := _args."b") AS pgrst_scalar FROM json_to_record($1::text::json) AS _args("a" integer, "b" integer) OFFSET 0) _t",
        "status": 200,
      }
    `);
  });
  it('an upsert that inserts is 201', async () => {
    expect(
      await golden(
        'POST',
        '/tags?on_conflict=name&select=name',
        { prefer: 'resolution=merge-duplicates,return=representation' },
        { name: 'brand new' },
      ),
    ).toMatchInlineSnapshot(`
      {
        "params": [
          "[{"name":"brand new"}]",
        ],
        "range": "*/*",
        "rows": [
          {
            "name": "brand new",
          },
        ],
        "sql": "WITH pgrst_upsert AS (INSERT INTO "public"."tags" AS pgrst_t ("name") SELECT _r."name" FROM json_populate_recordset(NULL::"public"."tags", $1::text::json) _r ON CONFLICT ("name") DO UPDATE SET "name" = EXCLUDED."name" RETURNING pgrst_t AS pgrst_row, pgrst_t.xmax = 0 AS pgrst_inserted), pgrst_source AS (SELECT (pgrst_row).* FROM pgrst_upsert) SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, (SELECT pg_catalog.count(*) FROM pgrst_upsert WHERE pgrst_inserted) AS inserted FROM (SELECT t0."name" AS "name" FROM pgrst_source t0) _t",
        "status": 201,
      }
    `);
  });
  it('missing=default gives identity columns their next value, row by row', async () => {
    expect(
      await golden(
        'POST',
        '/counters?columns=id,label&select=id,label',
        {
          prefer: 'missing=default,return=representation',
        },
        [{ id: 100 }, { label: 'x' }],
      ),
    ).toMatchInlineSnapshot(`
      {
        "params": [
          "id",
          "[{"id":100},{"label":"x"}]",
        ],
        "range": "*/*",
        "rows": [
          {
            "id": 100,
            "label": null,
          },
          {
            "id": 2,
            "label": "x",
          },
        ],
        "sql": "WITH pgrst_source AS (INSERT INTO "public"."counters" AS pgrst_t ("id", "label") SELECT CASE WHEN _j.j::jsonb ? $1::text THEN _r."id" ELSE _d.d0 END, _r."label" FROM json_array_elements($2::text::json) _j(j) CROSS JOIN LATERAL json_populate_record(NULL::"public"."counters", _j.j) _r CROSS JOIN LATERAL (SELECT _j.j AS pgrst_row, nextval('public.counters_id_seq'::regclass) AS d0) _d RETURNING pgrst_t."id", pgrst_t."label") SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."id" AS "id", t0."label" AS "label" FROM pgrst_source t0) _t",
        "status": 201,
      }
    `);
  });
});
