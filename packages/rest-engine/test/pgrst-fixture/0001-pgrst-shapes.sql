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
