-- Six-digit e-mail codes: each one-time token row also holds the hash of a code sent in the same e-mail, so the
-- link and the code are one secret: using either deletes the row and spends both.
alter table auth.one_time_tokens add column code_hash text;
create index one_time_tokens_user_type_idx on auth.one_time_tokens (user_id, token_type);
