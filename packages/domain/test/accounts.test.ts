// Account anonymization, the e-mail log, and the auction setting that lets team members create channels.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations } from '@auction-ops/auth-core';
import { domainMigrations } from '../src/index.js';
import { asUser, claimsFor, closeClients, sqlState } from './support/as-user.js';
import { buildWorld, type World } from './support/world.js';

let db: TestDatabase;
let w: World;
beforeAll(async () => {
  db = await createTestDatabase([authMigrations, domainMigrations]);
  w = await buildWorld(db.sql);
});
afterAll(async () => {
  await closeClients();
  await db.drop();
});
const as = <T>(user: string, fn: Parameters<typeof asUser<T>>[2]) => asUser(db.requestUrl, claimsFor(user), fn);

it('anonymize_user scrubs the person, keeps their records, shown as "Deleted user"', async () => {
  await db.sql`insert into auth.sessions (user_id) values (${w.a.member})`;
  await db.sql`insert into auth.identities (user_id, provider, provider_id)
    values (${w.a.member}, 'email', ${w.a.member})`;
  await db.sql`insert into public.user_push_tokens (user_id, token, platform)
    values (${w.a.member}, 'ExponentPushToken[m]', 'android')`;
  // Every kind of credential and pending sign-in step the account can have.
  const [factor] = await db.sql`insert into auth.mfa_factors (user_id, factor_type, status, secret)
    values (${w.a.member}, 'totp', 'verified', 'ciphertext') returning id`;
  await db.sql`insert into auth.mfa_challenges (factor_id) values (${factor!.id})`;
  await db.sql`insert into auth.webauthn_credentials (user_id, credential_id, public_key)
    values (${w.a.member}, 'passkey-of-the-member', '\\x01')`;
  await db.sql`insert into auth.webauthn_challenges (purpose, user_id, challenge, expires_at)
    values ('registration', ${w.a.member}, 'challenge', now() + interval '5 minutes')`;
  await db.sql`insert into auth.phone_codes (user_id, purpose, phone, code_hash, expires_at)
    values (${w.a.member}, 'confirmation', '15550001111', 'hash', now() + interval '5 minutes')`;
  await db.sql`insert into auth.flow_state (user_id, code_challenge_method, code_challenge, authentication_method)
    values (${w.a.member}, 's256', 'challenge', 'magiclink')`;
  const [client] = await db.sql`insert into auth.oauth_clients
      (redirect_uris, grant_types, client_type, token_endpoint_auth_method)
    values ('{https://app.example/cb}', '{authorization_code}', 'public', 'none') returning id`;
  await db.sql`insert into auth.oauth_consents (user_id, client_id, scopes) values (${w.a.member}, ${client!.id}, 'email')`;
  await db.sql`update auth.users set reauthentication_token = 'pending' where id = ${w.a.member}`;
  const [r] = await as(w.a.member, (tx) => tx`select public.anonymize_user() r`);
  expect(r!.r.user_id).toBe(w.a.member);
  const [u] = await db.sql`select email, encrypted_password, raw_user_meta_data, deleted_at,
    (select count(*)::int from auth.sessions s where s.user_id = u.id) sessions,
    (select count(*)::int from auth.identities i where i.user_id = u.id) identities from auth.users u
      where id = ${w.a.member}`;
  expect(u).toMatchObject({
    email: null,
    encrypted_password: null,
    raw_user_meta_data: {},
    sessions: 0,
    identities: 0,
  });
  const [p] = await db.sql`select email, full_name from public.users where id = ${w.a.member}`;
  expect(p).toEqual({ email: null, full_name: 'Deleted user' });
  const [{ n }] = await db.sql`select count(*)::int n from public.user_push_tokens where user_id = ${w.a.member}`;
  expect(n).toBe(0);
  const [left] = await db.sql`select
      (select count(*)::int from auth.mfa_factors where user_id = ${w.a.member}) factors,
      (select count(*)::int from auth.mfa_challenges where factor_id = ${factor!.id}) challenges,
      (select count(*)::int from auth.webauthn_credentials where user_id = ${w.a.member}) passkeys,
      (select count(*)::int from auth.webauthn_challenges where user_id = ${w.a.member}) webauthn_challenges,
      (select count(*)::int from auth.phone_codes where user_id = ${w.a.member}) phone_codes,
      (select count(*)::int from auth.flow_state where user_id = ${w.a.member}) flows,
      (select count(*)::int from auth.oauth_consents where user_id = ${w.a.member}) consents,
      (select reauthentication_token from auth.users where id = ${w.a.member}) reauthentication_token`;
  expect(left).toEqual({
    factors: 0,
    challenges: 0,
    passkeys: 0,
    webauthn_challenges: 0,
    phone_codes: 0,
    flows: 0,
    consents: 0,
    reauthentication_token: null,
  });
  const [sub] = await as(
    w.a.admin,
    (tx) => tx`select submitted_by from public.recent_submissions where id = ${w.ids.submission}`,
  );
  expect(sub!.submitted_by).toBe('Deleted user');
  const [msg] = await as(
    w.a.admin,
    (tx) => tx`select user_id, content from public.messages_with_reply_count where id = ${w.ids.message}`,
  );
  expect(msg).toEqual({ user_id: w.a.member, content: 'hello' });
  const [rep] = await as(
    w.a.admin,
    (tx) => tx`select prepared_by_name from public.active_problem_reports where id = ${w.ids.problem}`,
  );
  expect(rep!.prepared_by_name).toBe('Deleted user');
  const [{ m }] = await db.sql`select count(*)::int m from public.auction_members where user_id = ${w.a.member}`;
  expect(m).toBe(0);
});

it('a sole owner with other members must transfer ownership before anonymizing', async () => {
  expect(await sqlState(as(w.b.owner, (tx) => tx`select public.anonymize_user()`))).toBe('P0001');
});

it('log_email records for the caller; only the caller and super admins read it', async () => {
  const [r] = await as(
    w.a.admin,
    (tx) => tx`select public.log_email(p_to_email := 'x@y.test', p_template := 'invite', p_status := 'stored') id`,
  );
  const [row] = await db.sql`select user_id, template, status from public.email_log where id = ${r!.id}`;
  expect(row).toEqual({ user_id: w.a.admin, template: 'invite', status: 'stored' });
  expect(
    await sqlState(
      as(
        w.a.admin,
        (tx) => tx`select public.log_email(p_to_email := 'x@y.test', p_template := 't', p_status := 'bogus')`,
      ),
    ),
  ).toBe('23514');
});

it('team members create channels only when the auction allows it', async () => {
  const team = w.b.member;
  expect(
    await sqlState(
      as(team, (tx) => tx`insert into public.channels (auction_id, name) values (${w.b.auctionId}, 'crew')`),
    ),
  ).toBe('42501');
  await db.sql`update public.auctions set settings = settings || '{"members_can_create_channels": true}'
    where id = ${w.b.auctionId}`;
  const [c] = await as(
    team,
    (tx) => tx`insert into public.channels (auction_id, name) values (${w.b.auctionId}, 'crew') returning created_by`,
  );
  expect(c!.created_by).toBe(team);
});
