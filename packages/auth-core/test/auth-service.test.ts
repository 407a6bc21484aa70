// Flows at the package level on a real database: bcrypt upgrade on sign-in, refresh rotation edge cases,
// one-time tokens, and RLS/grants keeping auth tables away from request roles.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bcrypt from 'bcryptjs';
import postgres from 'postgres';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations, createAuthService, createTokenSigner, outboxMailer, type AuthService } from '../src/index.js';
import { inRequestTransaction } from '@auction-ops/database';

let db: TestDatabase;
let auth: AuthService;

beforeAll(async () => {
  db = await createTestDatabase([authMigrations]);
  auth = createAuthService(
    db.sql,
    await createTokenSigner({ secret: 'k'.repeat(40) }),
    outboxMailer(db.sql, 'x@example.com'),
    {
      publicUrl: 'http://localhost:1',
      appUrl: 'http://localhost:2',
      redirectAllowList: [],
      autoconfirm: true,
      disableSignup: false,
      anonymousSignIns: false,
      accessTokenSeconds: 3600,
      oneTimeTokenSeconds: 3600,
      refreshReuseSeconds: 10,
      tokenKey: 'k'.repeat(40),
      passwordPolicy: { minLength: 8, maxLength: 72, requiredClasses: [] },
    },
  );
});
afterAll(async () => {
  await auth?.drain();
  await db?.drop();
});

describe('auth service', () => {
  it('upgrades an imported bcrypt hash to argon2id on the next sign-in', async () => {
    const [user] = await db.sql`
      insert into auth.users (email, encrypted_password, email_confirmed_at)
        values ('old@example.com', ${bcrypt.hashSync('imported secret', 4)}, now())
      returning id`;
    await expect(auth.signInWithPassword({ email: 'old@example.com', password: 'wrong' }, {})).rejects.toMatchObject({
      code: 'invalid_grant',
    });
    const session = await auth.signInWithPassword({ email: 'old@example.com', password: 'imported secret' }, {});
    expect(session.user.id).toBe(user.id);
    const [row] = await db.sql`select encrypted_password from auth.users where id = ${user.id}`;
    expect(row.encrypted_password).toMatch(/^\$argon2id\$/);
    expect(
      (await auth.signInWithPassword({ email: 'old@example.com', password: 'imported secret' }, {})).access_token,
    ).toBeTruthy();
  });

  it('refuses refresh tokens of deleted users and of unknown values', async () => {
    const { session } = await auth.signUp({ email: 'gone@example.com', password: 'long enough' }, {});
    await expect(auth.refresh('x'.repeat(43))).rejects.toMatchObject({ status: 400, code: 'invalid_grant' });
    await expect(auth.refresh(42)).rejects.toMatchObject({ code: 'invalid_grant' });
    await db.sql`delete from auth.users where id = ${session!.user.id}`;
    await expect(auth.refresh(session!.refresh_token)).rejects.toMatchObject({ code: 'invalid_grant' });
  });

  it('walks a reused token forward to the current one inside the window', async () => {
    const { session } = await auth.signUp({ email: 'tabs@example.com', password: 'long enough' }, {});
    const t1 = (await auth.refresh(session!.refresh_token)).refresh_token;
    const t2 = (await auth.refresh(t1)).refresh_token;
    expect((await auth.refresh(session!.refresh_token)).refresh_token).toBe(t2);
  });

  it('one-time links work once, only as their own type, and not after expiry', async () => {
    await auth.signUp({ email: 'link@example.com', password: 'long enough' }, {});
    const recoveryToken = async () => {
      await auth.recover('link@example.com', undefined);
      await auth.drain();
      const [mail] = await db.sql`
        select text_body from auth.mail_outbox where to_email = 'link@example.com' order by created_at desc limit 1`;
      return new URL(mail.text_body.match(/http\S+/)[0]).searchParams.get('token')!;
    };
    const token = await recoveryToken();
    // Another type, or another address, neither accepts nor consumes it; its own type and address do, once.
    await expect(auth.verify('signup', token, {})).rejects.toMatchObject({ code: 'otp_expired' });
    await expect(auth.verify('recovery', token, {}, 'someone-else@example.com')).rejects.toMatchObject({
      code: 'otp_expired',
    });
    const session = await auth.verify('recovery', token, {}, ' Link@Example.com ');
    expect(session).toMatchObject({ type: 'recovery', user: { email: 'link@example.com' } });
    await expect(auth.verify('recovery', token, {})).rejects.toMatchObject({ status: 403, code: 'otp_expired' });

    const expiring = await recoveryToken();
    expect(expiring).not.toBe(token);
    await db.sql`update auth.one_time_tokens set expires_at = now() - interval '1 second'`;
    await expect(auth.verify('recovery', expiring, {})).rejects.toMatchObject({ status: 403, code: 'otp_expired' });
  });

  it('keeps auth tables away from request roles; public.users shows only the caller', async () => {
    const request = postgres(db.requestUrl, { max: 1, onnotice: () => {} });
    try {
      // Its own user, so the test does not depend on another having run first.
      const [{ id }] = await db.sql`insert into auth.users (email) values ('tables-probe@example.com') returning id`;
      for (const table of [
        'auth.users',
        'auth.sessions',
        'auth.refresh_tokens',
        'auth.one_time_tokens',
        'auth.mail_outbox',
        'auth.rate_limits',
      ]) {
        await expect(
          request.begin(async (tx) => {
            await tx`select set_config('role', 'authenticated', true)`;
            return tx.unsafe(`select * from ${table}`);
          }),
        ).rejects.toMatchObject({ code: '42501' });
      }
      const rows = await inRequestTransaction(
        request,
        'authenticated',
        { sub: id, role: 'authenticated' },
        (tx) => tx`select id, email from public.users`,
      );
      expect(rows).toEqual([{ id, email: 'tables-probe@example.com' }]);
    } finally {
      await request.end();
    }
  });
});
