-- PATCH with ?columns and Prefer: missing=default (PostgREST's UpdateSpec): a table column's default, and a view
-- column's own default (set on the view, not on its table).
create table tickets (id int primary key, title text, priority int default 3, note text default 'none');
create view tickets_view as select * from tickets;
alter view tickets_view alter column title set default 'Untitled';
grant select, insert, update on tickets, tickets_view to service_role;
insert into tickets values (1, 'first', 1, 'n1'), (2, 'second', 1, 'n2'), (3, 'third', 1, 'n3'), (4, 'fourth', 1, 'n4');
