-- A generic soft-delete schema for the softDeletes option: documents are archived, not removed. Readers see the
-- documents shared with them; only the owner may archive one; an archived document is hidden from everyone but
-- the service role, for whom archiving it again is a no-op (NULL: the row is skipped).
create table documents (
  id serial primary key,
  owner text not null,
  readers text[] not null default '{}',
  title text not null,
  archived_at timestamptz
);
alter table documents enable row level security;
create policy documents_read on documents for select to authenticated
  using (archived_at is null and (current_setting('request.jwt.claims', true)::json ->> 'sub') in (select owner union all select unnest(readers)));

create function archive_document(p_id int) returns documents
language plpgsql volatile security definer set search_path = '' as $$
declare
  v public.documents;
begin
  select * into v from public.documents where id = p_id for update;
  if v.archived_at is not null then
    return null;
  end if;
  if current_setting('request.jwt.claims', true)::json ->> 'role' <> 'service_role'
     and v.owner is distinct from current_setting('request.jwt.claims', true)::json ->> 'sub' then
    raise exception 'only the owner may archive a document' using errcode = '42501';
  end if;
  update public.documents set archived_at = now() where id = p_id returning * into v;
  return v;
end $$;

-- A two-column key: the function takes both columns, in key order.
create table revisions (
  document_id int references documents (id),
  n int,
  body text not null,
  archived boolean not null default false,
  primary key (document_id, n)
);
create function archive_revision(p_document_id int, p_n int, p_note text default null) returns revisions
language sql volatile as $$
  update revisions set archived = true where document_id = p_document_id and n = p_n returning *
$$;

-- Shaped wrongly for the option: returns another table's rows.
create function archive_wrongly(p_id int) returns revisions language sql volatile as $$ select null::revisions $$;

grant usage on schema public to anon, authenticated, service_role;
grant select, insert, update, delete on documents, revisions to authenticated, service_role;
grant select on documents to anon;

insert into documents (owner, readers, title) values
  ('user-a', '{user-b}', 'plan'), ('user-a', '{}', 'notes'), ('user-a', '{}', 'draft'), ('user-b', '{}', 'theirs');
insert into revisions values (1, 1, 'first'), (1, 2, 'second');
