-- Shapes that PostgREST's own test suite exercises and the main fixture lacks, written for the engine's tests of
-- those behaviours: a table of plain rows, a set-returning function that writes, functions with OUT, TABLE and
-- VARIADIC parameters, and functions that set the response's status and headers.
create table slots (id int primary key, label text);
insert into slots select n, 'slot ' || n from generate_series(1, 15) n;

-- Renames the projects whose ids lie in [lo, hi] and returns them: a write through RPC.
create function rename_projects(lo int, hi int, new_name text) returns setof projects language sql volatile as
  $$ update projects set name = new_name where id between lo and hi returning * $$;

grant select on slots to anon;
grant select, insert, update, delete on slots to authenticated, service_role;

-- A table without a primary key: an upsert has no conflict target unless on_conflict names one.
create table readings (label text unique, value int);
grant select on readings to anon;
grant select, insert, update, delete on readings to authenticated, service_role;

-- Result shapes: one OUT parameter and a one-column TABLE are rows with that column, as any OUT or TABLE list.
create function plus_one(num int, out num_plus_one int) language sql immutable as $$ select num + 1 $$;
create function letters() returns table (letter text) language sql immutable as $$ values ('A'), ('B') $$;
-- VARIADIC parameters: by POST an array, by GET the parameter repeated.
create function joined(variadic parts text[] default '{}') returns text[] language sql immutable as $$ select parts $$;
create function greet(who text, variadic extra text[]) returns text language sql immutable as
  $$ select 'Hello, ' || who $$;
create function slot_range(lo int, hi int) returns setof slots language sql stable as
  $$ select * from slots where id between lo and hi order by id $$;

-- A second schema, exposed beside public by the tests of schema negotiation (Accept-Profile, Content-Profile).
create schema alt;
create table alt.slots (id int primary key, note text);
insert into alt.slots values (1, 'alt one');
grant usage on schema alt to anon, authenticated, service_role;
grant select on alt.slots to anon;
grant select, insert, update, delete on alt.slots to authenticated, service_role;

-- Functions that shape their own answer: response.status and response.headers, and RAISE SQLSTATE 'PGRST'.
create function teapot() returns json language plpgsql volatile as $$
begin
  perform set_config('response.status', '418', true);
  perform set_config('response.headers', '[{"X-Brew": "green"}, {"Set-Cookie": "a=1"}, {"Set-Cookie": "b=2"}]', true);
  return '{"short": "and stout"}';
end $$;
create function bad_status() returns int language plpgsql volatile as $$
begin perform set_config('response.status', 'teapot', true); return 1; end $$;
create function bad_headers() returns int language plpgsql volatile as $$
begin perform set_config('response.headers', '{"X-Not": "an array"}', true); return 1; end $$;
-- Hostile settings and raises: whatever SQL computes (from a row, a request) reaches them.
create function set_answer(status text, headers text) returns int language plpgsql volatile as $$
begin
  perform set_config('response.status', status, true);
  perform set_config('response.headers', headers, true);
  return 1;
end $$;
create function raise_answer(message text, detail text) returns void language plpgsql as $$
begin raise sqlstate 'PGRST' using message = message, detail = detail; end $$;
create function pay_first() returns void language plpgsql as $$
begin
  raise sqlstate 'PGRST' using
    message = '{"code": "P0402", "message": "Payment Required", "details": "Quota exceeded", "hint": "Upgrade"}',
    detail = '{"status": 402, "headers": {"X-Powered-By": "Coins"}}';
end $$;
create function raise_unparsable() returns void language plpgsql as $$
begin raise sqlstate 'PGRST' using message = 'not json', detail = '{}'; end $$;

-- Parameters declared char(4) and bit(4), which PostgreSQL keeps as character and bit (of length one as columns).
create function char_param_select(char_ char(4), char_arr char(4)[]) returns table (char_ char, char_arr char[])
  language sql immutable as $$ select $1, $2 $$;
create function bit_param_select(bit_ bit(4), bit_arr bit(4)[]) returns table (bit_ bit, bit_arr bit[])
  language sql immutable as $$ select $1, $2 $$;

-- A function returning a domain over a table's row type: its rows embed as the table's.
create domain project_row as projects;
create function project_rows(lo int) returns setof project_row language sql stable as
  $$ select p::project_row from projects p where p.id >= lo $$;

-- A stable function that counts its calls in a sequence: a call through RPC runs it once.
create sequence stable_calls;
grant usage on sequence stable_calls to anon;
create function counted_stable(n int) returns int language plpgsql stable as
  $$ begin perform nextval('stable_calls'); return n; end $$;
