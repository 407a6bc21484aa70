// Invitations and e-mails end to end (supabase-js and plain fetch against the real server, a fake Resend on
// loopback): a link and an e-mail invitation accepted through accept_auction_invite by new users, expired and
// revoked ones refused, the e-mail's HTML and text, escaping, resend by token, provider failures; the account
// deletion e-mail to the caller's own address, best effort, followed by anonymize_user.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeResend,
  startNotifyHarness,
  type FakeResend,
  type NotifyHarness,
  type TestUser,
} from './functions-notify.fixture.js';

let h: NotifyHarness;
let resend: FakeResend;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let auctionId: string;

beforeAll(async () => {
  resend = await startFakeResend();
  h = await startNotifyHarness({
    RESEND_API_KEY: 're_test_key',
    RESEND_BASE_URL: resend.url,
    MAIL_FROM: 'Auction Ops <ops@example.com>',
  });
  ({
    auctionId,
    users: { olive: owner, adam: admin, tess: member },
  } = await h.arrangeTeam(
    {
      olive: { name: 'Olive Owner', role: 'owner' },
      adam: { name: 'Adam Admin', role: 'admin' },
      tess: { name: 'Tess Team', role: 'team_member' },
    },
    { timezone: 'Europe/Berlin' },
  ));
  await h.db.sql`update public.auctions set name = '<script>alert(1)</script> & Sons' where id = ${auctionId}`;
});
afterAll(async () => {
  await h?.close();
  await resend?.close();
});

const call = (user: TestUser | undefined, name: string, body: unknown) => h.call(name, { bearer: user?.token, body });
/** send-invite-email for a new invitation to the test auction. */
const invite = (user: TestUser, email: string, role: string) =>
  call(user, 'send-invite-email', { auction_id: auctionId, email, role });

describe('generate-invite-link', () => {
  it('makes a shareable link that a new user accepts through accept_auction_invite', async () => {
    const t0 = Date.now();
    const res = await call(admin, 'generate-invite-link', { auction_id: auctionId, role: 'team_member' });
    expect(res.status).toBe(200);
    const body = res.body as Record<string, string>;
    expect(body.invite_url).toBe(`https://app.example.test/invite?token=${body.token}`);
    expect(body).toMatchObject({ role: 'team_member', email: null });
    expect(Math.abs(new Date(body.expires_at).getTime() - (t0 + 7 * 86_400_000))).toBeLessThan(60_000);
    const newcomer = await h.signUp('nina', 'Nina New');
    const accepted = await newcomer.client.rpc('accept_auction_invite', { p_token: body.token });
    expect(accepted.error).toBeNull();
    expect(accepted.data).toMatchObject({ auction_id: auctionId, role: 'team_member' });
  });

  it('honours expires_in_days (1 to 30) and refuses others', async () => {
    const t0 = Date.now();
    const one = await call(admin, 'generate-invite-link', { auction_id: auctionId, role: 'admin', expires_in_days: 1 });
    expect(one.status).toBe(200);
    expect(Math.abs(new Date(one.body.expires_at as string).getTime() - (t0 + 86_400_000))).toBeLessThan(60_000);
    const [row] = await h.db
      .sql`select expires_at from public.auction_invitations where id = ${one.body.invitation_id as string}`;
    expect(row.expires_at.toISOString()).toBe(one.body.expires_at);
    const long = await call(admin, 'generate-invite-link', {
      auction_id: auctionId,
      role: 'admin',
      expires_in_days: 31,
    });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ code: 'VALIDATION_ERROR', details: 'expires_in_days' });
    const text = await call(admin, 'generate-invite-link', {
      auction_id: auctionId,
      role: 'admin',
      expires_in_days: '7',
    });
    expect(text.status).toBe(400);
    expect(text.body).toMatchObject({ code: 'INVALID_REQUEST', details: 'expires_in_days' });
  });

  it('lets only owners invite owners, and refuses team members', async () => {
    const byAdmin = await call(admin, 'generate-invite-link', { auction_id: auctionId, role: 'owner' });
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body).toMatchObject({ code: 'FORBIDDEN', error: 'only owners can invite owners' });
    const byOwner = await call(owner, 'generate-invite-link', { auction_id: auctionId, role: 'owner' });
    expect(byOwner.status).toBe(200);
    const byMember = await call(member, 'generate-invite-link', { auction_id: auctionId, role: 'team_member' });
    expect(byMember.status).toBe(403);
    const unknownRole = await call(owner, 'generate-invite-link', { auction_id: auctionId, role: 'boss' });
    expect(unknownRole.status).toBe(400);
    expect(unknownRole.body).toMatchObject({ code: 'VALIDATION_ERROR', details: 'role' });
  });

  it('an expired and a revoked invitation are refused on accept and on resend', async () => {
    const expired = await invite(admin, 'late@notify.test', 'team_member');
    expect(expired.status).toBe(200);
    const expiredToken = tokenFromLastMail('late@notify.test');
    await h.db.sql`update public.auction_invitations set expires_at = now() - interval '1 minute'
      where id = ${expired.body.invitation_id as string}`;
    const revoked = await invite(admin, 'gone@notify.test', 'team_member');
    const revokedToken = tokenFromLastMail('gone@notify.test');
    // Revoked as admins revoke: a PATCH of revoked_at through /rest/v1.
    const revoke = await admin.client
      .from('auction_invitations')
      .update({ revoked_at: new Date().toISOString() })
      .eq('id', revoked.body.invitation_id as string)
      .select('id, revoked_at');
    expect(revoke.error).toBeNull();
    expect(revoke.data).toHaveLength(1);
    expect(revoke.data![0].revoked_at).not.toBeNull();

    const late = await h.signUp('late', 'Lee Late');
    const a1 = await late.client.rpc('accept_auction_invite', { p_token: expiredToken });
    expect(a1.error?.message).toBe('invitation has expired');
    const gone = await h.signUp('gone', 'Gus Gone');
    const a2 = await gone.client.rpc('accept_auction_invite', { p_token: revokedToken });
    expect(a2.error?.message).toBe('invitation has been revoked');

    const again1 = await call(admin, 'send-invite-email', { token: expiredToken });
    expect(again1.status).toBe(400);
    expect(again1.body).toMatchObject({ code: 'VALIDATION_ERROR', error: 'invitation has expired' });
    const again2 = await call(admin, 'send-invite-email', { token: revokedToken });
    expect(again2.status).toBe(400);
    expect(again2.body).toMatchObject({ code: 'VALIDATION_ERROR', error: 'invitation has been revoked' });
    const unknown = await call(admin, 'send-invite-email', { token: 'not-a-token' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'NOT_FOUND' });
  });
});

function lastMailTo(email: string) {
  const call = [...resend.calls].reverse().find((c) => c.body.to.includes(email));
  if (!call) throw new Error(`no mail to ${email}`);
  return call.body;
}
function tokenFromLastMail(email: string): string {
  return /invite\?token=([0-9a-f]+)/.exec(lastMailTo(email).text)![1];
}

describe('send-invite-email', () => {
  it('mails the role wording, the inviter, the expiry and the link in HTML and text; the invitee accepts', async () => {
    const res = await invite(owner, 'Ava@Notify.test', 'admin');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email: 'ava@notify.test', role: 'admin', delivery: 'sent' });
    expect(res.body.email_id).toBe(`re_${resend.calls.length}`);
    const mail = lastMailTo('ava@notify.test');
    expect(mail.from).toBe('Auction Ops <ops@example.com>');
    expect(mail.subject).toBe('Olive Owner invited you to <script>alert(1)</script> & Sons as Administrator');
    const token = tokenFromLastMail('ava@notify.test');
    const link = `https://app.example.test/invite?token=${token}`;
    const expiry = new Intl.DateTimeFormat('en-US', {
      dateStyle: 'full',
      timeStyle: 'short',
      timeZone: 'Europe/Berlin',
    }).format(new Date(res.body.expires_at as string));
    expect(mail.text).toContain(
      'Olive Owner has invited you to join <script>alert(1)</script> & Sons on auction-ops as Administrator.',
    );
    expect(mail.text).toContain(
      'As an Administrator you manage users, locations and settings, and you can view all of the auction’s data.',
    );
    expect(mail.text).toContain(`The invitation expires on ${expiry} (Europe/Berlin).`);
    expect(mail.text).toContain(link);
    // HTML: the same facts, every value escaped: the auction's name shows as text, never as markup.
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('&#60;script&#62;alert(1)&#60;/script&#62; &#38; Sons');
    expect(mail.html).toContain('<strong>Olive Owner</strong>');
    expect(mail.html).toContain('<strong>Administrator</strong>');
    expect(mail.html).toContain(`href="${link}"`);

    const ava = await h.signUp('ava', 'Ava Admin');
    const accepted = await ava.client.rpc('accept_auction_invite', { p_token: token });
    expect(accepted.error).toBeNull();
    expect(accepted.data).toMatchObject({ auction_id: auctionId, role: 'admin' });
    const [log] = await h.db.sql`select user_id, template, status, provider_id from public.email_log
      where to_email = 'ava@notify.test'`;
    expect(log).toEqual({
      user_id: owner.id,
      template: 'auction_invite',
      status: 'sent',
      provider_id: res.body.email_id,
    });
  });

  it('words each role with its own sentence', async () => {
    for (const [role, label, sentence] of [
      ['owner', 'Owner', 'As an Owner you have full access'],
      ['team_member', 'Team Member', 'As a Team Member you submit car counts'],
    ]) {
      const email = `${role.replace('_', '')}@notify.test`;
      const res = await invite(owner, email, role);
      expect(res.status).toBe(200);
      const mail = lastMailTo(email);
      expect(mail.text).toContain(`as ${label}.`);
      expect(mail.text).toContain(sentence);
      expect(mail.html).toContain(`<strong>${label}</strong>`);
    }
  });

  it('resends an invitation by its token to the same address', async () => {
    const first = await invite(admin, 'rex@notify.test', 'team_member');
    const token = tokenFromLastMail('rex@notify.test');
    const count = resend.calls.length;
    const again = await call(admin, 'send-invite-email', { token });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      invitation_id: first.body.invitation_id,
      email: 'rex@notify.test',
      role: 'team_member',
      expires_at: first.body.expires_at,
      delivery: 'sent',
    });
    expect(resend.calls.length).toBe(count + 1);
    expect(tokenFromLastMail('rex@notify.test')).toBe(token);
    // A team member may not resend.
    const byMember = await call(member, 'send-invite-email', { token });
    expect(byMember.status).toBe(403);
  });

  it('a provider failure is 500 INTERNAL_ERROR and the invitation stays valid', async () => {
    resend.status = 500;
    try {
      const res = await invite(owner, 'ivy@notify.test', 'admin');
      expect(res.status).toBe(500);
      expect(res.body.code).toBe('INTERNAL_ERROR');
      expect(res.body.error).toMatch(/the invitation stays valid/);
    } finally {
      resend.status = 200;
    }
    const [inv] = await h.db.sql`select revoked_at, accepted_at, expires_at > now() as valid
      from public.auction_invitations where email = 'ivy@notify.test'`;
    expect(inv).toEqual({ revoked_at: null, accepted_at: null, valid: true });
    const [log] = await h.db.sql`select status from public.email_log where to_email = 'ivy@notify.test'`;
    expect(log.status).toBe('failed');
  });
});

describe('send-account-deletion-email', () => {
  it('always writes to the caller’s own address, listing what is deleted and what is kept', async () => {
    const leaver = await h.signUp('leo', 'Leo Leaving');
    const res = await call(leaver, 'send-account-deletion-email', {
      email: 'attacker@evil.test',
      to: 'attacker@evil.test',
      deleted_items: ['Your profile', 'Your <b>tokens</b>'],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sent: true, delivery: 'sent', email_id: `re_${resend.calls.length}` });
    const mail = resend.calls[resend.calls.length - 1].body;
    expect(mail.to).toEqual(['leo@notify.test']);
    expect(mail.text).toContain('What is deleted:\n- Your profile\n- Your <b>tokens</b>\n');
    expect(mail.text).toContain('What is kept:\n- Lot submissions and their photos\n');
    expect(mail.html).toContain('<li>Your &#60;b&#62;tokens&#60;/b&#62;</li>');
    expect(mail.html).toContain('<li>Chat messages you sent</li>');
    const [log] = await h.db.sql`select user_id, to_email, template, status from public.email_log
      where template = 'account_deletion' and user_id = ${leaver.id}`;
    expect(log).toEqual({
      user_id: leaver.id,
      to_email: 'leo@notify.test',
      template: 'account_deletion',
      status: 'sent',
    });
  });

  it('a failing provider still answers 200 with sent false, and anonymize_user then succeeds', async () => {
    const leaver = await h.signUp('lia', 'Lia Leaving');
    resend.status = 500;
    let res: Awaited<ReturnType<typeof call>>;
    try {
      res = await call(leaver, 'send-account-deletion-email', {});
    } finally {
      resend.status = 200;
    }
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sent: false, delivery: 'failed', error: 'resend answered 500: provider is down' });
    const [log] = await h.db.sql`select status, error from public.email_log where user_id = ${leaver.id}`;
    expect(log).toEqual({ status: 'failed', error: 'resend answered 500: provider is down' });
    const gone = await leaver.client.rpc('anonymize_user');
    expect(gone.error).toBeNull();
    const [user] = await h.db.sql`select email, full_name from public.users where id = ${leaver.id}`;
    expect(user).toEqual({ email: null, full_name: 'Deleted user' });
  });

  it('is refused to the service role, which has no address of its own', async () => {
    const key = h.server.ctx.serviceRoleKey;
    const res = await h.call('send-account-deletion-email', { apikey: key, bearer: key, body: {} });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });
});
