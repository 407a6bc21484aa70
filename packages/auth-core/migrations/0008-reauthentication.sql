-- The reauthentication nonce (GET /reauthenticate): its hash and when it was sent, as GoTrue keeps them on the user.
alter table auth.users add column reauthentication_token text, add column reauthentication_sent_at timestamptz;
