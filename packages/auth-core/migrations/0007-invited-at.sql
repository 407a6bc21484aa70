-- When a user was invited (POST /admin/invite): GoTrue's user object shows it as invited_at.
alter table auth.users add column invited_at timestamptz;
