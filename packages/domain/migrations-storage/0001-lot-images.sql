-- The domain's part of storage: its super admins administer every bucket and object, and the bucket the apps
-- upload lot photos to (public read, images only; size limit: the server-wide default unless configured).
create or replace function storage.is_super_admin() returns boolean
language sql stable security definer set search_path = '' as $$
  select public.is_super_admin()
$$;

insert into storage.buckets (id, name, public, allowed_mime_types)
values ('lot-images', 'lot-images', true, array['image/jpeg', 'image/png', 'image/webp', 'image/heic', 'image/heif', 'image/gif']);
