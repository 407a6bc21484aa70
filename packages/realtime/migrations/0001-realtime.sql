-- Realtime: the publication change capture reads, the batched authorization of changes under row-level security,
-- and the state several server instances share (which instances are alive, who is present on which topic).
create schema realtime;

-- Tables join this publication to become subscribable; other packages add theirs.
create publication auction_ops_realtime;

-- Whether the current request role and claims belong to the given tenant: who may join the tenant's private
-- channels. Packages with tenants replace this body; by default only the service role belongs.
create function realtime.in_tenant(tenant uuid) returns boolean
language sql stable as $$ select current_user = 'service_role' $$;

-- Identity classes: a package may declare, per table, a class of a role and its claims such that two identities
-- of one class see exactly the same rows of that table (for the domain: the same role, memberships and location
-- assignments). Policies are then evaluated once per class instead of once per subscriber. Null (the default)
-- means no such promise: each identity is checked on its own. Computed from the claims, not under them, so the
-- classes of a thousand subscribers take one query.
create function realtime.identity_class(rel regclass, role text, claims jsonb) returns text
language sql stable as $$ select null::text $$;

-- The tables whose rows a class depends on, and their column naming the user: a change to one of them makes the
-- classes of that user be computed again before later changes are judged.
create table realtime.identity_inputs (
  rel regclass primary key,
  user_column name not null
);

-- The class of each identity (same identities shape as visible_changes) for each table.
create function realtime.identity_classes(rels regclass[], identities jsonb)
returns table(identity integer, rel regclass, class text)
language sql stable as $$
  select (e.ord - 1)::integer, r, realtime.identity_class(r, e.v->>'role', (e.v->>'claims')::jsonb)
    from jsonb_array_elements(identities) with ordinality e(v, ord), unnest(rels) r
$$;

-- The USING expression row-level security applies to SELECTs on `rel` by the current role: its permissive
-- policies or'ed, its restrictive ones and'ed; 'true' when RLS does not apply; null when nothing is visible.
create function realtime.select_policy(rel regclass) returns text
language sql stable set search_path = pg_catalog, pg_temp as $$
  with applicable as (
    select p.polpermissive, '(' || coalesce(pg_get_expr(p.polqual, p.polrelid), 'true') || ')' as qual
      from pg_policy p
     where p.polrelid = rel and p.polcmd in ('r', '*')
       and exists (select from unnest(p.polroles) r where r = 0 or pg_has_role(current_user, r, 'member')))
  select case
    when not has_any_column_privilege(rel, 'SELECT') then null
    when not (select c.relrowsecurity from pg_class c where c.oid = rel)
      or (select r.rolbypassrls from pg_roles r where r.rolname = current_user) then 'true'
    when not exists (select from applicable where polpermissive) then null
    else (select string_agg(qual, ' or ') from applicable where polpermissive)
      || coalesce(' and ' || (select string_agg(qual, ' and ') from applicable where not polpermissive), '')
  end
$$;

-- Which changes each identity may see, for one table: one call per batch of changes and table, however many
-- subscribers. `changes` holds the row images from the change stream (the new row, or the old one of a delete);
-- each identity's SELECT policies are evaluated on those images under its role and claims, so a row that changed
-- again or went away before the check is judged as it was committed. `identities` holds {"role", "claims"}.
-- Returns (identity index, change index) pairs, both from 0. Each identity runs in its own subtransaction: a
-- policy that raises hides the batch from that identity only.
create function realtime.visible_changes(rel regclass, changes jsonb, identities jsonb)
returns table(identity integer, change integer)
language plpgsql volatile set search_path = pg_catalog, pg_temp as $$
declare
  ident record;
  qual text;
  quals jsonb := '{}';
  alias text := (select c.relname from pg_class c where c.oid = rel);
begin
  for ident in select (e.ord - 1)::integer as idx, e.v
                 from jsonb_array_elements(identities) with ordinality e(v, ord) loop
    if ident.v->>'role' not in ('anon', 'authenticated', 'service_role') then
      continue;
    end if;
    begin
      perform set_config('role', ident.v->>'role', true);
      perform set_config('request.jwt.claims', ident.v->>'claims', true);
      -- The policy text depends on the role only: worked out once per role and call.
      if quals ? (ident.v->>'role') then
        qual := quals->>(ident.v->>'role');
      else
        qual := realtime.select_policy(rel);
        quals := quals || jsonb_build_object(ident.v->>'role', qual);
      end if;
      if qual is not null then
        -- The image is named as the table, so the policy's column references resolve to it.
        return query execute format(
          'select $2, (c.ord - 1)::integer from jsonb_array_elements($1) with ordinality c(v, ord), '
          'lateral jsonb_populate_record(null::%s, c.v) as %I where %s', rel, alias, qual)
          using changes, ident.idx;
      end if;
    exception when others then
      null; -- this identity sees nothing of the batch; the others go on
    end;
  end loop;
end $$;

revoke all on function realtime.visible_changes(regclass, jsonb, jsonb) from public;
grant usage on schema realtime to anon, authenticated, service_role, authenticator;
grant execute on function realtime.visible_changes(regclass, jsonb, jsonb) to authenticator;
revoke all on function realtime.identity_classes(regclass[], jsonb) from public;
grant execute on function realtime.identity_classes(regclass[], jsonb) to authenticator;
grant execute on function realtime.identity_class(regclass, text, jsonb) to authenticator;
grant select on realtime.identity_inputs to authenticator;
grant execute on function realtime.in_tenant(uuid) to anon, authenticated, service_role;
grant execute on function realtime.select_policy(regclass) to anon, authenticated, service_role;

-- Instances announce themselves every few seconds; one that stops announcing is swept with its presences.
create unlogged table realtime.instances (
  id text primary key,
  seen_at timestamptz not null default now()
);

create unlogged table realtime.presences (
  topic text not null,
  presence_ref text not null,
  key text not null,
  meta jsonb not null,
  instance_id text not null references realtime.instances on delete cascade,
  primary key (topic, presence_ref)
);

-- Broadcasts too large for a NOTIFY payload travel through this table; rows live about a minute.
create unlogged table realtime.relayed_messages (
  id bigint generated always as identity primary key,
  body jsonb not null,
  created_at timestamptz not null default now()
);
