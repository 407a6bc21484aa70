-- Shapes from PostgREST's own test suite that the main fixture lacks, for the engine's tests of relationships
-- through views over a schema that is not exposed, partitions, computed fields in filters and order, and PUT.
create schema hidden;
create table hidden.authors (id int primary key, name text);
create table hidden.books (id int primary key, title text, author_id int references hidden.authors);
insert into hidden.authors values (1, 'Ann'), (2, 'Bob');
insert into hidden.books values (1, 'First', 1), (2, 'Second', 1), (3, 'Third', 2);
create view writers as select id, name from hidden.authors;
create view titles as select id, title, author_id as writer from hidden.books;
-- One base column shown under two names: a relationship for each.
create view titles_twice as select id, author_id as first_author, author_id as second_author from hidden.books;

-- A many-to-many whose junction is exposed only as a view.
create table hidden.tags (id int primary key, name text);
create table hidden.book_tags (
  book_id int references hidden.books, tag_id int references hidden.tags, primary key (book_id, tag_id));
insert into hidden.tags values (1, 'red'), (2, 'blue');
insert into hidden.book_tags values (1, 1), (1, 2), (3, 2);
create view tag_list as select * from hidden.tags;
create view book_tag_links as select * from hidden.book_tags;

-- A self-reference seen through a view.
create table hidden.nodes (id int primary key, parent_id int references hidden.nodes);
insert into hidden.nodes values (1, null), (2, 1);
create view tree as select id, parent_id from hidden.nodes;

-- A partitioned table referenced by a foreign key: its partitions get copies of that constraint, which make no
-- relationships.
create table yearly (id int, year int, primary key (id, year)) partition by list (year);
create table yearly_2020 partition of yearly for values in (2020);
insert into yearly values (1, 2020);
create table year_notes (id int, year int, note text, foreign key (id, year) references yearly);
insert into year_notes values (1, 2020, 'n');

-- Computed fields, and a table for PUT.
create table gauges (id int primary key, level int);
insert into gauges values (1, 5), (2, 10), (3, 1);
create function doubled(g gauges) returns int language sql immutable as $$ select g.level * 2 $$;
create function is_high(g gauges) returns boolean language sql immutable as $$ select g.level >= 5 $$;

grant select on writers, titles, titles_twice, tag_list, book_tag_links, tree, yearly, yearly_2020, year_notes, gauges to anon, service_role;
grant insert, update, delete on gauges to service_role;

-- Functions for request bodies that are not JSON: an HTML form (with a VARIADIC parameter), a raw text body to a
-- single unnamed parameter; and one whose argument shares its name with a column filtered on by GET.
create function add_them(a int, b int) returns int language sql immutable as $$ select a + b $$;
create function joined_words(variadic words text[]) returns text language sql immutable as
  $$ select array_to_string(words, ' ') $$;
create function shout_text(text) returns text language sql immutable as $$ select upper($1) $$;
create function gauges_upto(id int) returns setof gauges language sql stable as
  $$ select * from gauges g where g.id <= gauges_upto.id $$;
create table memos (id int primary key, body text, score int);
grant select, insert, update, delete on memos to service_role;

-- JSON paths on columns that are not json: an array and a composite.
create type pair as (x int, y text);
create table shelves (id int primary key, sizes int[], grid int[][], label pair);
insert into shelves values (1, '{3,4}', '{{1,2},{3,4}}', row(10, 'ten')), (2, '{5}', '{{5,6},{7,8}}', row(20, 'twenty'));
grant select on shelves to service_role;

-- A deferred constraint, violated by a function: checked also when the transaction is rolled back.
create table deferred_once (col int unique deferrable initially deferred);
create function break_deferred() returns void language sql volatile as
  $$ insert into deferred_once values (1), (1) $$;
grant select, insert on deferred_once to service_role;

-- Functions answering in a media type of their own: their return type is a domain named after it.
create domain "text/plain" as text;
create domain "text/html" as text;
create domain "text/xml" as xml;
create function hello_plain() returns "text/plain" language sql immutable as $$ select 'Hello'::"text/plain" $$;
create function hello_page() returns "text/html" language sql immutable as
  $$ select '<h1>Hello</h1>'::"text/html" $$;
create function hello_twice() returns setof "text/plain" language sql immutable as
  $$ values ('a'::"text/plain"), ('b') $$;
create function echo_xml(xml) returns "text/xml" language sql immutable as $$ select $1::"text/xml" $$;

-- A data representation: a colour stored as an integer, read and written as '#RRGGBB' through casts.
create domain rgb as integer check (value >= 0 and value <= 16777215);
create function rgb(text) returns rgb language sql immutable as
  $$ select (('x' || lpad(ltrim($1, '#'), 8, '0'))::bit(32)::int)::rgb $$;
create function rgb(json) returns rgb language sql immutable as $$ select rgb($1 #>> '{}') $$;
create function "json"(rgb) returns json language sql immutable as
  $$ select to_json('#' || lpad(upper(to_hex($1)), 6, '0')) $$;
create cast (rgb as json) with function "json"(rgb) as implicit;
create cast (json as rgb) with function rgb(json) as implicit;
create cast (text as rgb) with function rgb(text) as implicit;
create table swatches (id int primary key, name text, colour rgb);
insert into swatches values (1, 'black', 0), (2, 'blue', 255);
grant select, insert, update on swatches to service_role;

-- Views take the primary keys of the tables they show: an updatable view over one table, and a view over two
-- tables written through a trigger (one key may come back null).
create view gauge_levels as select id, level from gauges;
create view gauge_levels_keyless as select level from gauges;
create table hidden.left_keys (l int primary key);
create table hidden.right_keys (r int primary key);
create view key_pairs as select * from hidden.left_keys, hidden.right_keys;
create function key_pairs_insert() returns trigger language plpgsql as $$
begin
  insert into hidden.left_keys values (new.l) on conflict do nothing;
  if new.r is not null then insert into hidden.right_keys values (new.r) on conflict do nothing; end if;
  return new;
end $$;
create trigger ins instead of insert on key_pairs for each row execute procedure key_pairs_insert();
grant select, insert, update, delete on gauge_levels, gauge_levels_keyless, key_pairs to service_role;
grant usage on schema hidden to service_role;
grant select, insert on hidden.left_keys, hidden.right_keys to service_role;

-- Two junctions between the same tables: an ambiguous many-to-many.
create table m_sites (id int primary key);
create table m_projects (id int primary key);
create table m_jobs (site_id int references m_sites, project_id int references m_projects, primary key (site_id, project_id));
create table m_main_jobs (site_id int references m_sites, project_id int references m_projects, primary key (site_id, project_id));
grant select on m_sites, m_projects, m_jobs, m_main_jobs to service_role;
-- Upserts into a partitioned table (its RETURNING reads no xmax); its partitions are no names of the API.
grant insert, update on yearly to service_role;

-- Full-text search on a column whose type is a domain over a domain over tsvector.
create domain words as tsvector;
create domain some_words as words check (length(value) > 0);
create table phrases (id int primary key, plain words, body some_words);
insert into phrases values (1, to_tsvector('simple', 'it is kind of fun'), to_tsvector('simple', 'it is kind of fun')),
  (2, to_tsvector('simple', 'cats ate rats'), to_tsvector('simple', 'cats ate rats'));
create function all_phrases() returns setof phrases language sql stable as $$ select * from phrases $$;
grant select on phrases to service_role;

-- Settings a request's transaction sets: app settings, request.cookies, request.headers.
create function setting_of(name text) returns text language sql stable as $$ select current_setting(name, true) $$;
create function cookie_of(name text) returns text language sql stable as
  $$ select current_setting('request.cookies', true)::json ->> name $$;

-- A column whose type is a domain with a default (used when the column has no default of its own).
create domain devil_int as int default 666;
create table devils (id devil_int, name text, at timestamptz);
create table devils_own (id devil_int default 420, name text);
grant select, insert on devils, devils_own to service_role;

-- Two junctions between the same tables: an ambiguous many-to-many.
create table sites (id int primary key);
create table works (id int primary key);
create table site_works (site_id int references sites, work_id int references works, primary key (site_id, work_id));
create table site_plans (site_id int references sites, work_id int references works, primary key (site_id, work_id));
grant select on sites, works, site_works, site_plans to service_role;

-- A table whose name is not ASCII: its Content-Location carries the name percent-encoded.
create table "موارد" (id int);
grant select on "موارد" to service_role;
