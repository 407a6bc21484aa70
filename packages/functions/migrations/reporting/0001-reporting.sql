-- Reporting: imported dataset rows live in one table per dataset in the schema reporting_data, outside the
-- exposed public schema. Request roles read them only through execute-query, and row-level security lets a
-- caller read a dataset's table only while the datasets row itself is visible to them (auction membership).
create schema reporting_data;
grant usage on schema reporting_data to authenticated, service_role;

-- True when the caller can see the dataset (its RLS on public.datasets decides). Security invoker on purpose.
create function reporting_data.dataset_visible(p_dataset_id uuid) returns boolean
  language sql stable security invoker set search_path = '' as $$
  select exists (select 1 from public.datasets where id = p_dataset_id and status in ('ready', 'importing'))
$$;
revoke all on function reporting_data.dataset_visible(uuid) from public;
grant execute on function reporting_data.dataset_visible(uuid) to authenticated, service_role;

-- Imports in flight: the importing server holds a session advisory lock on the dataset while it works, so a
-- crashed import is recognised (lock free, row present) and rolled back to the dataset's previous state.
create table reporting_data.imports (
  dataset_id uuid primary key references public.datasets (id) on delete cascade,
  staging_table text not null,
  mode text not null check (mode in ('create', 'append', 'replace')),
  previous_status text not null,
  started_at timestamptz not null default now()
);
revoke all on reporting_data.imports from public;

-- Conversations of generate-sql, owned by their user; at most the last 20 messages are kept.
create table public.query_conversations (
  id uuid primary key default gen_random_uuid(),
  auction_id uuid not null references public.auctions (id) on delete cascade,
  dataset_id uuid not null references public.datasets (id) on delete cascade,
  -- null when the service role asked.
  user_id uuid references public.users (id) on delete cascade default auth.uid(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index query_conversations_user_idx on public.query_conversations (user_id, updated_at desc);

create table public.query_conversation_messages (
  id bigint generated always as identity primary key,
  conversation_id uuid not null references public.query_conversations (id) on delete cascade,
  role text not null check (role in ('user', 'assistant')),
  content text not null,
  created_at timestamptz not null default now()
);
create index query_conversation_messages_idx on public.query_conversation_messages (conversation_id, id);

alter table public.query_conversations enable row level security;
alter table public.query_conversation_messages enable row level security;
grant select, insert, update, delete on public.query_conversations, public.query_conversation_messages
  to authenticated;
grant all on public.query_conversations, public.query_conversation_messages to service_role;

create policy query_conversations_own on public.query_conversations for all to authenticated
  using (user_id = (select auth.uid()))
  with check (user_id = (select auth.uid()) and auction_id in (select public.current_user_auction_ids()));
create policy query_conversation_messages_own on public.query_conversation_messages for all to authenticated
  using (conversation_id in (select id from public.query_conversations where user_id = (select auth.uid())))
  with check (conversation_id in (select id from public.query_conversations where user_id = (select auth.uid())));
