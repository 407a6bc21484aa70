// Golden {sql, params} per feature, each then executed on real Postgres through the engine: every case pins the
// exact statement, its parameters, and the exact status and rows the engine answers with (writes rolled back).
import { describe, expect, it } from 'vitest';
import { compile } from '../src/compile/statement-compiler.js';
import { parse } from '../src/parse/request-parser.js';
import { plan } from '../src/plan/planner.js';
import { GOLDEN_OPTIONS as OPTS, goldenSuite } from './helpers.js';

const { golden, harness: h } = goldenSuite({ aggregatesEnabled: true });

describe('golden SQL', () => {
  it('plain select with filter, order and limit', async () => {
    expect(
      await golden('GET', '/projects?select=id,name&id=gt.1&order=name.desc.nullslast&limit=5&offset=1'),
    ).toMatchInlineSnapshot(`
      {
        "params": [
          "1",
          5,
          1,
        ],
        "range": "1-1/*",
        "rows": [
          {
            "id": 2,
            "name": "Bridge plans",
          },
        ],
        "sql": "SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."id" AS "id", t0."name" AS "name" FROM "public"."projects" t0 WHERE t0."id" > $1 ORDER BY t0."name" DESC NULLS LAST LIMIT $2::int8 OFFSET $3::int8) _t",
        "status": 200,
      }
    `);
  });
  it('to-one and to-many embeds with hints', async () => {
    expect(
      await golden(
        'GET',
        '/projects?select=name,owner:users!owner_id(email),tasks(title)&tasks.order=id&tasks.limit=2',
      ),
    ).toMatchInlineSnapshot(`
      {
        "params": [
          2,
        ],
        "range": "0-2/*",
        "rows": [
          {
            "name": "Apollo engine",
            "owner": {
              "email": "ada@example.com",
            },
            "tasks": [
              {
                "title": "Design nozzle",
              },
              {
                "title": "Test fire",
              },
            ],
          },
          {
            "name": "Bridge plans",
            "owner": {
              "email": "bob@example.com",
            },
            "tasks": [
              {
                "title": "Survey site",
              },
            ],
          },
          {
            "name": "Cellar door",
            "owner": {
              "email": "ada@example.com",
            },
            "tasks": [
              {
                "title": "Fix hinge",
              },
            ],
          },
        ],
        "sql": "SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."name" AS "name", e0_1.body AS "owner", e0_2.body AS "tasks" FROM "public"."projects" t0 LEFT JOIN LATERAL (SELECT row_to_json(_e) AS body FROM (SELECT t0_1."email" AS "email" FROM "public"."users" t0_1 WHERE t0_1."id" = t0."owner_id") _e) e0_1 ON TRUE LEFT JOIN LATERAL (SELECT coalesce(json_agg(_e), '[]') AS body FROM (SELECT t0_2."title" AS "title" FROM "public"."tasks" t0_2 WHERE t0_2."project_id" = t0."id" ORDER BY t0_2."id" LIMIT $1::int8) _e) e0_2 ON TRUE) _t",
        "status": 200,
      }
    `);
  });
  it('many-to-many and !inner with an embed filter', async () => {
    expect(await golden('GET', '/projects?select=id,tags!inner(name)&tags.name=eq.beta')).toMatchInlineSnapshot(`
      {
        "params": [
          "beta",
        ],
        "range": "0-1/*",
        "rows": [
          {
            "id": 1,
            "tags": [
              {
                "name": "beta",
              },
            ],
          },
          {
            "id": 2,
            "tags": [
              {
                "name": "beta",
              },
            ],
          },
        ],
        "sql": "SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."id" AS "id", e0_1.body AS "tags" FROM "public"."projects" t0 INNER JOIN LATERAL (SELECT coalesce(json_agg(_e), '[]') AS body FROM (SELECT t0_1."name" AS "name" FROM "public"."tags" t0_1 WHERE EXISTS (SELECT 1 FROM "public"."project_tags" t0_1_j WHERE t0_1_j."project_id" = t0."id" AND t0_1_j."tag_id" = t0_1."id") AND t0_1."name" = $1) _e) e0_1 ON e0_1.body::text <> '[]') _t",
        "status": 200,
      }
    `);
  });
  it('logic trees, in, is, fts and json paths', async () => {
    expect(
      await golden(
        'GET',
        '/projects?select=id,meta->>color&or=(budget.gt.500,and(mood.eq.sad,is_active.not.is.true))&id=in.(1,2,3)&search=fts(english).apollo&meta->nested->>k=eq.v',
      ),
    ).toMatchInlineSnapshot(`
      {
        "params": [
          "color",
          "{"1","2","3"}",
          "english",
          "apollo",
          "nested",
          "k",
          "v",
          "500",
          "sad",
        ],
        "range": "0-0/*",
        "rows": [
          {
            "color": "red",
            "id": 1,
          },
        ],
        "sql": "SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."id" AS "id", (t0."meta"->>$1::text) AS "color" FROM "public"."projects" t0 WHERE t0."id" = ANY($2) AND t0."search" @@ to_tsquery($3::regconfig, $4) AND (t0."meta"->$5::text->>$6::text) = $7 AND (t0."budget" > $8 OR (t0."mood" = $9 AND NOT (t0."is_active" IS TRUE)))) _t",
        "status": 200,
      }
    `);
  });
  it('count=estimated: exact count stopped one row past the cap, and EXPLAIN of the counted rows', async () => {
    const input = {
      method: 'GET',
      path: '/tasks',
      search: 'select=id&done=is.false',
      headers: { prefer: 'count=estimated' },
    };
    const { main, explain } = compile(plan(parse(input), h().engine.schemaCache, { ...OPTS, maxRows: 100 }), 100);
    expect({ main, explain }).toMatchInlineSnapshot(`
      {
        "explain": {
          "params": [],
          "sql": "EXPLAIN (FORMAT JSON) SELECT 1 FROM "public"."tasks" t0 WHERE t0."done" IS FALSE",
        },
        "main": {
          "params": [
            101,
            100,
          ],
          "sql": "SELECT (SELECT pg_catalog.count(*) FROM (SELECT 1 FROM "public"."tasks" t0 WHERE t0."done" IS FALSE LIMIT $1::int8) _c) AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."id" AS "id" FROM "public"."tasks" t0 WHERE t0."done" IS FALSE LIMIT $2::int8) _t",
        },
      }
    `);
    // Both run on Postgres (EXPLAIN's top node is the scan itself, so its "Plan Rows" estimates the total).
    const [row] = await h().db.sql.unsafe(main.sql, main.params as never[]);
    expect(row).toMatchObject({ total: '3', page_total: '3' });
    const [{ 'QUERY PLAN': qp }] = await h().db.sql.unsafe(explain!.sql, explain!.params as never[]);
    expect(qp[0].Plan['Node Type']).toBe('Seq Scan');
  });
  it('count=exact', async () => {
    expect(await golden('GET', '/tasks?select=id&done=is.false', { prefer: 'count=exact' })).toMatchInlineSnapshot(`
      {
        "params": [],
        "range": "0-2/3",
        "rows": [
          {
            "id": 2,
          },
          {
            "id": 3,
          },
          {
            "id": 5,
          },
        ],
        "sql": "SELECT (SELECT pg_catalog.count(*) FROM (SELECT 1 FROM "public"."tasks" t0 WHERE t0."done" IS FALSE) _c) AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."id" AS "id" FROM "public"."tasks" t0 WHERE t0."done" IS FALSE) _t",
        "status": 200,
      }
    `);
  });
  it('count=exact with embeds that filter: EXISTS of the embedded level, no JSON built', async () => {
    expect(
      await golden(
        'GET',
        '/projects?select=id,tasks!inner(id),reviewer:users!reviewer_id()&tasks.done=is.false' +
          '&or=(reviewer.not.is.null,id.eq.3)&order=id',
        { prefer: 'count=exact' },
      ),
    ).toMatchInlineSnapshot(`
      {
        "params": [
          "3",
          "3",
        ],
        "range": "0-1/2",
        "rows": [
          {
            "id": 1,
            "tasks": [
              {
                "id": 2,
              },
              {
                "id": 3,
              },
            ],
          },
          {
            "id": 3,
            "tasks": [
              {
                "id": 5,
              },
            ],
          },
        ],
        "sql": "SELECT (SELECT pg_catalog.count(*) FROM (SELECT 1 FROM "public"."projects" t0 WHERE (EXISTS (SELECT 1 FROM "public"."users" t0_2 WHERE t0_2."id" = t0."reviewer_id") OR t0."id" = $1) AND EXISTS (SELECT 1 FROM "public"."tasks" t0_1 WHERE t0_1."project_id" = t0."id" AND t0_1."done" IS FALSE)) _c) AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."id" AS "id", e0_1.body AS "tasks" FROM "public"."projects" t0 INNER JOIN LATERAL (SELECT coalesce(json_agg(_e), '[]') AS body FROM (SELECT t0_1."id" AS "id" FROM "public"."tasks" t0_1 WHERE t0_1."project_id" = t0."id" AND t0_1."done" IS FALSE) _e) e0_1 ON e0_1.body::text <> '[]' LEFT JOIN LATERAL (SELECT row_to_json(_e) AS body FROM (SELECT  FROM "public"."users" t0_2 WHERE t0_2."id" = t0."reviewer_id") _e) e0_2 ON TRUE WHERE (e0_2.body IS NOT NULL OR t0."id" = $2) ORDER BY t0."id") _t",
        "status": 200,
      }
    `);
  });
  it('spread on a to-many embed: one JSON array per column, ordered, inner', async () => {
    expect(
      await golden(
        'GET',
        '/projects?select=name,...tasks!inner(titles:title,priority)&tasks.order=id&tasks.done=is.false&order=id',
      ),
    ).toMatchInlineSnapshot(`
      {
        "params": [],
        "range": "0-1/*",
        "rows": [
          {
            "name": "Apollo engine",
            "priority": [
              2,
              null,
            ],
            "titles": [
              "Test fire",
              "Write report",
            ],
          },
          {
            "name": "Cellar door",
            "priority": [
              3,
            ],
            "titles": [
              "Fix hinge",
            ],
          },
        ],
        "sql": "SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."name" AS "name", e0_1."titles", e0_1."priority" FROM "public"."projects" t0 INNER JOIN LATERAL (SELECT coalesce(json_agg(_e."titles"), '[]') AS "titles", coalesce(json_agg(_e."priority"), '[]') AS "priority", pg_catalog.count(*) AS pgrst_rows FROM (SELECT t0_1."title" AS "titles", t0_1."priority" AS "priority" FROM "public"."tasks" t0_1 WHERE t0_1."project_id" = t0."id" AND t0_1."done" IS FALSE ORDER BY t0_1."id") _e) e0_1 ON e0_1.pgrst_rows > 0 ORDER BY t0."id") _t",
        "status": 200,
      }
    `);
  });
  it('spread, cast and order by a to-one relation', async () => {
    expect(
      await golden(
        'GET',
        '/tasks?select=title,priority::text,...projects(project_name:name)&order=projects(name).desc,id',
      ),
    ).toMatchInlineSnapshot(`
      {
        "params": [],
        "range": "0-4/*",
        "rows": [
          {
            "priority": "3",
            "project_name": "Cellar door",
            "title": "Fix hinge",
          },
          {
            "priority": "1",
            "project_name": "Bridge plans",
            "title": "Survey site",
          },
          {
            "priority": "1",
            "project_name": "Apollo engine",
            "title": "Design nozzle",
          },
          {
            "priority": "2",
            "project_name": "Apollo engine",
            "title": "Test fire",
          },
          {
            "priority": null,
            "project_name": "Apollo engine",
            "title": "Write report",
          },
        ],
        "sql": "SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."title" AS "title", (t0."priority")::"pg_catalog"."text" AS "priority", e0_2."project_name" FROM "public"."tasks" t0 LEFT JOIN LATERAL (SELECT t0_2."name" AS "project_name", 1 AS pgrst_rows FROM "public"."projects" t0_2 WHERE t0_2."id" = t0."project_id") e0_2 ON TRUE ORDER BY (SELECT t0_o0."name" FROM "public"."projects" t0_o0 WHERE t0_o0."id" = t0."project_id" LIMIT 1) DESC, t0."id") _t",
        "status": 200,
      }
    `);
  });
  it('aggregates', async () => {
    expect(await golden('GET', '/tasks?select=project_id,count(),priority.max()')).toMatchInlineSnapshot(`
      {
        "params": [],
        "range": "0-2/*",
        "rows": [
          {
            "count": 1,
            "max": 3,
            "project_id": 3,
          },
          {
            "count": 1,
            "max": 1,
            "project_id": 2,
          },
          {
            "count": 3,
            "max": 2,
            "project_id": 1,
          },
        ],
        "sql": "SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."project_id" AS "project_id", pg_catalog.count(*) AS "count", pg_catalog.max(t0."priority") AS "max" FROM "public"."tasks" t0 GROUP BY t0."project_id") _t",
        "status": 200,
      }
    `);
  });
  it('insert with representation', async () => {
    expect(
      await golden('POST', '/tags?select=name', { prefer: 'return=representation' }, [{ name: 'g1' }, { name: 'g2' }]),
    ).toMatchInlineSnapshot(`
      {
        "params": [
          "[{"name":"g1"},{"name":"g2"}]",
        ],
        "range": "*/*",
        "rows": [
          {
            "name": "g1",
          },
          {
            "name": "g2",
          },
        ],
        "sql": "WITH pgrst_source AS (INSERT INTO "public"."tags" AS pgrst_t ("name") SELECT _r."name" FROM json_populate_recordset(NULL::"public"."tags", $1::text::json) _r RETURNING pgrst_t."name") SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0."name" AS "name" FROM pgrst_source t0) _t",
        "status": 201,
      }
    `);
  });
  it('upsert merge-duplicates', async () => {
    expect(
      await golden(
        'POST',
        '/tags?on_conflict=name',
        { prefer: 'resolution=merge-duplicates,return=representation' },
        { name: 'alpha' },
      ),
    ).toMatchInlineSnapshot(`
      {
        "params": [
          "[{"name":"alpha"}]",
        ],
        "range": "*/*",
        "rows": [
          {
            "id": 1,
            "name": "alpha",
          },
        ],
        "sql": "WITH pgrst_upsert AS (INSERT INTO "public"."tags" AS pgrst_t ("name") SELECT _r."name" FROM json_populate_recordset(NULL::"public"."tags", $1::text::json) _r ON CONFLICT ("name") DO UPDATE SET "name" = EXCLUDED."name" RETURNING pgrst_t AS pgrst_row, pgrst_t.xmax = 0 AS pgrst_inserted), pgrst_source AS (SELECT (pgrst_row).* FROM pgrst_upsert) SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, (SELECT pg_catalog.count(*) FROM pgrst_upsert WHERE pgrst_inserted) AS inserted FROM (SELECT t0.* FROM pgrst_source t0) _t",
        "status": 200,
      }
    `);
  });
  it('update and delete with filters', async () => {
    expect(
      await golden('PATCH', '/tasks?id=eq.1', { prefer: 'return=representation' }, { done: false }),
    ).toMatchInlineSnapshot(`
      {
        "params": [
          "{"done":false}",
          "1",
        ],
        "range": "0-0/*",
        "rows": [
          {
            "assignee_id": 2,
            "done": false,
            "id": 1,
            "priority": 1,
            "project_id": 1,
            "title": "Design nozzle",
          },
        ],
        "sql": "WITH pgrst_source AS (UPDATE "public"."tasks" AS pgrst_t SET "done" = _r."done" FROM json_populate_record(NULL::"public"."tasks", $1::text::json) _r WHERE pgrst_t."id" = $2 RETURNING pgrst_t.*) SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, coalesce(json_agg(_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT t0.* FROM pgrst_source t0) _t",
        "status": 200,
      }
    `);
    expect(await golden('DELETE', '/tasks?id=eq.5&done=is.false')).toMatchInlineSnapshot(`
      {
        "params": [
          "5",
        ],
        "range": "*/*",
        "rows": null,
        "sql": "WITH pgrst_source AS (DELETE FROM "public"."tasks" AS pgrst_t WHERE pgrst_t."id" = $1 AND pgrst_t."done" IS FALSE RETURNING 1) SELECT NULL::bigint AS total, pg_catalog.count(_t) AS page_total, '' AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status FROM (SELECT 1 FROM pgrst_source) _t",
        "status": 204,
      }
    `);
  });
});
