-- Which stored objects belong to an auction (issue 52, findings 3 and 4). Until now an auction's objects were the
-- objects its rows named by URL (0031's auction_object_refs), so anyone could make another user's private object
-- "the auction's" by pasting its URL into a branding logo, then have the purge delete it or the export carry its
-- bytes. The rule from here on: a URL grants nothing; a LINK does.
--
-- Objects belong to users (`<user_id>/...` folders, storage 0001's policies) or to an auction (`<auction_id>/...`
-- folders, which only super admins and the service role may write). A row of an auction written with a URL naming
-- a stored object (the URL columns below) is accepted only when the object is in the writer's own folder, in the
-- auction's folder, or already linked to that auction (a URL copied inside the auction), or when the writer is the
-- service role or the database owner; the accepted URL records a link. The purge, the export and the storage read
-- path go by links (and the auction's folder), never by URLs.
--
-- The URL columns, enumerated from the catalog at this release (every text `*_url` column of a public table with
-- auction_id, plus image messages); test/object-links.test.ts fails when the catalog grows another:
--   public.auction_branding.logo_url
--   public.lot_submissions.image_url
--   public.lot_submission_entries.image_url
--   public.messages.content where message_type = 'image'

create table domain.auction_object_links (
  auction_id uuid not null references public.auctions (id) on delete cascade,
  bucket_id text not null,
  -- "C" as storage.objects.name, so joins with it compare (and use the indexes) byte for byte.
  name text collate "C" not null,
  linked_by uuid,
  linked_at timestamptz not null default now(),
  primary key (auction_id, bucket_id, name)
);
-- "Is this object linked to another auction?" (the purge) and "to a live one?" (storage reads): one index lookup.
create index auction_object_links_object_idx on domain.auction_object_links (bucket_id, name);
-- Only security-definer code below touches links: no request role has a grant, and RLS is on in case one appears.
alter table domain.auction_object_links enable row level security;
revoke all on domain.auction_object_links from public, anon, authenticated, service_role;

-- The stored object a URL names: `/storage/v1/(object|render/image)/(public/|authenticated/|sign/)?<bucket>/<name>`
-- with any host (or none), the query string and fragment ignored, the name percent-decoded as the storage routes
-- decode it. Null for anything else (an external https URL names no object and links nothing).
create function domain.storage_url_object(p_url text, out bucket_id text, out name text)
language plpgsql immutable parallel safe set search_path = '' as $$
declare
  m text[];
begin
  m := pg_catalog.regexp_match(p_url,
    '/storage/v1/(?:object|render/image)/(?:public/|authenticated/|sign/)?([a-z0-9][a-z0-9._-]{0,62})/([^?#]+)');
  if m is null then
    return;
  end if;
  bucket_id := m[1];
  name := m[2];
  if pg_catalog.strpos(name, '%') > 0 then
    begin
      select pg_catalog.convert_from(pg_catalog.string_agg(
               case when p[1] is not null then pg_catalog.decode(pg_catalog.substr(p[1], 2), 'hex')
                    else pg_catalog.convert_to(p[2], 'UTF8') end, ''::bytea order by o), 'UTF8')
        into name
        from pg_catalog.regexp_matches(m[2], '(%[0-9A-Fa-f]{2})|([^%]+|%)', 'g') with ordinality as x(p, o);
    exception when others then
      -- Not valid UTF-8 once decoded: kept as written. Links name objects exactly, so this one names none.
      name := m[2];
    end;
  end if;
end $$;

-- Whether the writer is trusted with any URL: the service role, or the database owner (migrations, the seed, the
-- server's jobs). Read from the `role` setting, which SET ROLE (the request transaction's first statement) sets and
-- a security-definer function does not change, so an RPC that writes for its caller is still that caller's write.
-- `none` (no SET ROLE) is the session's own login: the owner, unless it is the request login `authenticator`,
-- which may hold no privilege of its own.
create function domain.object_link_writer_trusted() returns boolean
language sql stable set search_path = '' as $$
  select case pg_catalog.current_setting('role')
    when 'service_role' then true
    when 'anon' then false
    when 'authenticated' then false
    when 'none' then session_user::text <> 'authenticator'
    else false end
$$;

-- The check and the link for one URL written into a row of p_auction_id. Refuses (42501) a URL naming an object
-- outside the writer's own folder and the auction's, unless already linked to this auction or the writer is
-- trusted; super admins follow the rule like anyone (a pasted URL must not hand another user's object over).
create function domain.link_url_object(p_auction_id uuid, p_url text) returns void
language plpgsql volatile security definer set search_path = '' as $$
declare
  v_bucket text;
  v_name text;
  v_first text;
begin
  if p_auction_id is null or p_url is null then
    return;
  end if;
  select o.bucket_id, o.name into v_bucket, v_name from domain.storage_url_object(p_url) o;
  if v_bucket is null then
    return;
  end if;
  -- The first folder, as storage.foldername(name)[1] (none for a name without a folder).
  if pg_catalog.strpos(v_name, '/') > 0 then
    v_first := pg_catalog.split_part(v_name, '/', 1);
  end if;
  if not (domain.object_link_writer_trusted()
          or v_first = (select auth.uid())::text
          or v_first = p_auction_id::text
          or exists (select 1 from domain.auction_object_links l
                      where l.auction_id = p_auction_id and l.bucket_id = v_bucket and l.name = v_name)) then
    raise exception 'the URL names a stored object outside your own folder and this auction''s'
      using errcode = '42501',
            detail = pg_catalog.format('object %s/%s', v_bucket, v_name),
            hint = 'Upload the file under your own folder (<your user id>/...) and use its URL, or use a URL this '
                   'auction already uses. A URL grants nothing: only the uploader (or the auction''s own folder) '
                   'can link an object to an auction.';
  end if;
  insert into domain.auction_object_links (auction_id, bucket_id, name, linked_by)
  values (p_auction_id, v_bucket, v_name, (select auth.uid()))
  on conflict do nothing;
end $$;

-- The trigger: AFTER the row is written, so auction_id is the one the BEFORE triggers settled (children take their
-- parent's). TG_ARGV[0] names the URL column; the WHEN clauses below let only rows whose URL changed and mentions
-- `/storage/v1/` reach it.
create function domain.object_links_check() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform domain.link_url_object(new.auction_id, pg_catalog.to_jsonb(new) ->> tg_argv[0]);
  return null;
end $$;

do $$
declare
  c record;
begin
  for c in select * from (values ('auction_branding', 'logo_url'), ('lot_submissions', 'image_url'),
                                 ('lot_submission_entries', 'image_url')) v(t, col)
  loop
    execute format('create trigger %I after insert on public.%I for each row when (new.%I like %L) '
                   'execute function domain.object_links_check(%L)',
      c.t || '_object_links_insert', c.t, c.col, '%/storage/v1/%', c.col);
    execute format('create trigger %I after update on public.%I for each row when ((new.%I is distinct from old.%I '
                   'or new.auction_id is distinct from old.auction_id) and new.%I like %L) '
                   'execute function domain.object_links_check(%L)',
      c.t || '_object_links_update', c.t, c.col, c.col, c.col, '%/storage/v1/%', c.col);
  end loop;
end $$;
create trigger messages_object_links_insert after insert on public.messages for each row
  when (new.message_type = 'image' and new.content like '%/storage/v1/%')
  execute function domain.object_links_check('content');
create trigger messages_object_links_update after update on public.messages for each row
  when (new.message_type = 'image' and new.content like '%/storage/v1/%'
        and (new.content is distinct from old.content or new.message_type is distinct from old.message_type
             or new.auction_id is distinct from old.auction_id))
  execute function domain.object_links_check('content');

-- Every (auction, URL) of the URL columns, for the backfill and the import.
create function domain.auction_urls(p_auction_id uuid default null)
returns table (auction_id uuid, url text)
language sql stable set search_path = '' as $$
  select b.auction_id, b.logo_url from public.auction_branding b
   where b.logo_url like '%/storage/v1/%' and (p_auction_id is null or b.auction_id = p_auction_id)
  union all
  select s.auction_id, s.image_url from public.lot_submissions s
   where s.image_url like '%/storage/v1/%' and (p_auction_id is null or s.auction_id = p_auction_id)
  union all
  select e.auction_id, e.image_url from public.lot_submission_entries e
   where e.image_url like '%/storage/v1/%' and (p_auction_id is null or e.auction_id = p_auction_id)
  union all
  select m.auction_id, m.content from public.messages m
   where m.message_type = 'image' and m.content like '%/storage/v1/%'
     and (p_auction_id is null or m.auction_id = p_auction_id)
$$;

-- The backfill of rows written before this release (and its test): a URL is linked when its object's first folder
-- is the auction's id or a user who is (now) a member of the auction. Any other URL stays unlinked: a borrowed URL
-- written before the upgrade grants nothing (the purge leaves its object, the export does not carry it). Returns
-- how many links it made.
create function domain.backfill_object_links() returns bigint
language plpgsql volatile set search_path = '' as $$
declare
  v_count bigint;
begin
  insert into domain.auction_object_links (auction_id, bucket_id, name, linked_by)
  select distinct u.auction_id, o.bucket_id, o.name, null::uuid
    from domain.auction_urls() u
    cross join lateral domain.storage_url_object(u.url) o
   where o.bucket_id is not null
     and pg_catalog.strpos(o.name, '/') > 0
     and (pg_catalog.split_part(o.name, '/', 1) = u.auction_id::text
          or exists (select 1 from public.auction_members m
                      where m.auction_id = u.auction_id and m.user_id::text = pg_catalog.split_part(o.name, '/', 1)))
  on conflict do nothing;
  get diagnostics v_count = row_count;
  return v_count;
end $$;
select domain.backfill_object_links();

-- After an import or restore (which runs with triggers off): the imported rows' URLs are linked when they name an
-- object the archive carried (p_buckets[i]/p_names[i]) or one under the auction's own folder. Nothing else: an
-- archive naming some other object by URL links nothing. Returns how many links it made.
create function domain.link_imported_objects(p_auction_id uuid, p_buckets text[], p_names text[]) returns bigint
language plpgsql volatile set search_path = '' as $$
declare
  v_count bigint;
begin
  insert into domain.auction_object_links (auction_id, bucket_id, name, linked_by)
  select distinct p_auction_id, o.bucket_id, o.name, null::uuid
    from domain.auction_urls(p_auction_id) u
    cross join lateral domain.storage_url_object(u.url) o
   where o.bucket_id is not null
     and (pg_catalog.split_part(o.name, '/', 1) = p_auction_id::text and pg_catalog.strpos(o.name, '/') > 0
          or exists (select 1 from unnest(p_buckets, p_names) c(bucket_id, name)
                      where c.bucket_id = o.bucket_id and c.name = o.name))
  on conflict do nothing;
  get diagnostics v_count = row_count;
  return v_count;
end $$;

-- The objects of an auction: those under its `<auction_id>/` folder in any bucket and those linked to it, except
-- any another auction also links (a shared object stays while anyone else still links it). What the purge removes.
-- No temporary table (0031's did): stable, so it runs in read-only transactions too, and an index lookup per link.
-- Dynamic because the domain migrates before storage may exist (a server without storage has no objects).
create or replace function domain.auction_object_refs(p_auction_id uuid)
returns table (bucket_id text, name text)
language plpgsql stable set search_path = '' as $$
begin
  if to_regclass('storage.objects') is null then
    return;
  end if;
  return query execute $q$
    select o.bucket_id, o.name::text from (
      select o.bucket_id, o.name from storage.buckets b
        join storage.objects o on o.bucket_id = b.id and o.name like ($1::text || '/%')
      union
      select o.bucket_id, o.name from domain.auction_object_links l
        join storage.objects o on o.bucket_id = l.bucket_id and o.name = l.name
       where l.auction_id = $1
    ) o
    where not exists (select 1 from domain.auction_object_links x
                       where x.bucket_id = o.bucket_id and x.name = o.name and x.auction_id <> $1)$q$
    using p_auction_id;
end $$;

revoke execute on function domain.storage_url_object(text), domain.object_link_writer_trusted(),
  domain.link_url_object(uuid, text), domain.object_links_check(), domain.auction_urls(uuid),
  domain.backfill_object_links(), domain.link_imported_objects(uuid, text[], text[]) from public;
