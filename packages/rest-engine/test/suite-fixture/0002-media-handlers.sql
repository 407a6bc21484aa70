-- Media type handlers: aggregates over a relation's rows (or any rows) whose result is a domain named after a media
-- type, and a function returning the domain of any media type (over bytea).
create domain "text/tab-separated-values" as text;
create function gauges_tsv_step(state "text/tab-separated-values", g gauges) returns "text/tab-separated-values"
  language sql immutable as $$ select (state || g.id || E'\t' || g.level || E'\n')::"text/tab-separated-values" $$;
create aggregate gauges_tsv(gauges) (stype = "text/tab-separated-values", sfunc = gauges_tsv_step, initcond = '');

create domain "text/x-rows" as text;
create function rows_step(state "text/x-rows", r anyelement) returns "text/x-rows" language sql immutable as
  $$ select (state || r::text || E'\n')::"text/x-rows" $$;
create aggregate rows_text(anyelement) (stype = "text/x-rows", sfunc = rows_step, initcond = '');

create domain "application/x-marked" as jsonb;
create function marked_step(state "application/x-marked", g gauges) returns "application/x-marked"
  language sql immutable as $$ select (state || jsonb_build_array(g.id))::"application/x-marked" $$;
create aggregate marked(gauges) (stype = "application/x-marked", sfunc = marked_step, initcond = '[]');

create domain "*/*" as bytea;
create function raw_bytes() returns "*/*" language sql immutable as $$ select '\xff00fe'::bytea::"*/*" $$;
create table tallies (n int);
insert into tallies values (1), (2);
grant select on tallies to anon, service_role;
create function tallies_step(state "*/*", t tallies) returns "*/*" language sql immutable as
  $$ select (state || t.n::text::bytea)::"*/*" $$;
create aggregate tallies_bytes(tallies) (stype = "*/*", sfunc = tallies_step, initcond = '');
