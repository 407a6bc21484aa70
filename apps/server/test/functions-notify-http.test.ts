// The HTTP edge of the six notification functions: 401 without a user, 403 for the wrong role, 405 for another
// method, 400 for a malformed or incomplete body, 429 past the per-user limit; plus send-push-notifications and
// send-chat-notification's own rules (100 tokens, 4 KB of data, members only, idempotent POST).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FunctionAnswer,
  startNotifyHarness,
  until,
  type NotifyHarness,
  type TestUser,
} from './functions-notify.fixture.js';
import { awaitWindowRoom } from './support/rate-windows.js';

let h: NotifyHarness;
let owner: TestUser;
let admin: TestUser;
let member: TestUser;
let outsider: TestUser;
let auctionId: string;
let messageId: string;

beforeAll(async () => {
  h = await startNotifyHarness();
  ({
    auctionId,
    users: { olive: owner, adam: admin, tess: member, otto: outsider },
  } = await h.arrangeTeam({
    olive: { name: 'Olive Owner', role: 'owner' },
    adam: { name: 'Adam Admin', role: 'admin', tokens: ['adam'] },
    tess: { name: 'Tess Team', role: 'team_member', tokens: ['tess-1', ['tess-2', 'android']] },
    otto: { name: 'Otto Outside', tokens: ['otto'] },
  }));
  const { data: channel } = await owner.client
    .from('channels')
    .insert({ auction_id: auctionId, name: 'general' })
    .select('id')
    .single();
  const { data, error } = await member.client
    .from('messages')
    .insert({ auction_id: auctionId, channel_id: channel!.id, content: 'Hello team' })
    .select('id')
    .single();
  if (error) throw error;
  messageId = data.id;
});
afterAll(async () => {
  await h?.close();
});

const anon = () => h.server.ctx.anonKey;
const service = () => h.server.ctx.serviceRoleKey;

interface Row {
  name: string;
  /** A caller and body refused with 403. */
  forbidden: () => { bearer: string; body: unknown };
  /** A JSON body missing a required field, and that field. */
  incomplete?: () => { body: unknown; field: string };
  limit: number;
  /** A caller for the 429 case (the limit counts per user). */
  limitCaller: () => string;
}

const rows: Row[] = [
  {
    name: 'send-push-notifications',
    forbidden: () => ({
      bearer: member.token,
      body: { auction_id: auctionId, title: 't', body: 'b', notification_type: 'x', user_ids: [admin.id] },
    }),
    incomplete: () => ({ body: { title: 't', body: 'b', notification_type: 'x', user_ids: [] }, field: 'auction_id' }),
    limit: 100,
    limitCaller: () => outsider.token,
  },
  {
    name: 'send-chat-notification',
    forbidden: () => ({ bearer: admin.token, body: { message_id: messageId } }),
    incomplete: () => ({ body: {}, field: 'message_id' }),
    limit: 120,
    limitCaller: () => outsider.token,
  },
  {
    name: 'check-pending-submissions',
    forbidden: () => ({ bearer: owner.token, body: {} }),
    limit: 120,
    limitCaller: () => service(),
  },
  {
    name: 'generate-invite-link',
    forbidden: () => ({ bearer: member.token, body: { auction_id: auctionId, role: 'team_member' } }),
    incomplete: () => ({ body: { auction_id: auctionId }, field: 'role' }),
    limit: 120,
    limitCaller: () => outsider.token,
  },
  {
    name: 'send-invite-email',
    forbidden: () => ({ bearer: member.token, body: { auction_id: auctionId, email: 'x@notify.test', role: 'admin' } }),
    incomplete: () => ({ body: { auction_id: auctionId, role: 'admin' }, field: 'email' }),
    limit: 120,
    limitCaller: () => outsider.token,
  },
  {
    name: 'send-account-deletion-email',
    forbidden: () => ({ bearer: service(), body: {} }),
    limit: 120,
    limitCaller: () => outsider.token,
  },
];

describe.each(rows)('$name', (row) => {
  it('401 UNAUTHORIZED without a user token, with the anon key as bearer, and with a bad token', async () => {
    for (const bearer of [undefined, anon(), 'not.a.jwt']) {
      const res = await h.call(row.name, { bearer, body: {} });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHORIZED');
      expect(typeof res.body.error).toBe('string');
    }
  });

  it('403 FORBIDDEN for a caller without the right', async () => {
    const { bearer, body } = row.forbidden();
    const res = await h.call(row.name, { bearer, body });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });

  it('405 METHOD_NOT_ALLOWED for GET, with Allow', async () => {
    const res = await h.call(row.name, { bearer: owner.token, method: 'GET' });
    expect(res.status).toBe(405);
    expect(res.body.code).toBe('METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('400 INVALID_REQUEST for a body that is not JSON, and for a missing field', async () => {
    const bearer = row.name === 'check-pending-submissions' ? service() : owner.token;
    const res = await h.call(row.name, { bearer, raw: '{"not json' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_REQUEST');
    const list = await h.call(row.name, { bearer, raw: '[1, 2]' });
    expect(list.status).toBe(400);
    expect(list.body.code).toBe('INVALID_REQUEST');
    if (row.incomplete) {
      const { body, field } = row.incomplete();
      const missing = await h.call(row.name, { bearer, body });
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({ code: 'INVALID_REQUEST', details: field });
    }
  });

  it('429 RATE_LIMITED past the per-user limit, naming it', async () => {
    await awaitWindowRoom(60_000);
    const bearer = row.limitCaller();
    let last: FunctionAnswer | undefined;
    for (let i = 0; i <= row.limit; i++) {
      last = await h.call(row.name, { bearer, raw: 'x' });
      if (i === 0) expect(last.headers.get('x-ratelimit-limit')).toBe(String(row.limit));
    }
    expect(last!.status).toBe(429);
    expect(last!.body.code).toBe('RATE_LIMITED');
    expect(last!.body.error).toBe(`at most ${row.limit} requests per minute for ${row.name}`);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('send-push-notifications rules', () => {
  const push = (bearer: string, body: Record<string, unknown>) =>
    h.call('send-push-notifications', {
      bearer,
      body: {
        auction_id: auctionId,
        title: 'Heads up',
        body: 'Lot A closes early',
        notification_type: 'notice',
        ...body,
      },
    });

  it('an admin reaches a member’s tokens by user id; tickets name each token', async () => {
    const res = await push(admin.token, { user_ids: [member.id], data: { lot: 'A' }, priority: 'high' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sent: 2, failed: 0, removed_tokens: 0 });
    const tickets = res.body.tickets as Array<{ token: string; status: string; id?: string }>;
    expect(tickets.map((t) => [t.token, t.status])).toEqual([
      ['ExponentPushToken[tess-1]', 'ok'],
      ['ExponentPushToken[tess-2]', 'ok'],
    ]);
    const sent = h.expo.delivered().filter((m) => m.data?.notification_type === 'notice');
    expect(sent.map((m) => [m.to, m.title, m.body, m.priority])).toEqual([
      ['ExponentPushToken[tess-1]', 'Heads up', 'Lot A closes early', 'high'],
      ['ExponentPushToken[tess-2]', 'Heads up', 'Lot A closes early', 'high'],
    ]);
    expect(sent[0].data).toEqual({ lot: 'A', notification_type: 'notice' });
  });

  it('the service role may send; a token answered DeviceNotRegistered is removed and counted', async () => {
    h.expo.unregistered.add('ExponentPushToken[adam]');
    const res = await push(service(), { tokens: ['ExponentPushToken[adam]'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sent: 0, failed: 1, removed_tokens: 1 });
    expect((res.body.tickets as unknown[])[0]).toMatchObject({ status: 'error', error: 'DeviceNotRegistered' });
    const left = await h.db.sql`select 1 from public.user_push_tokens where token = 'ExponentPushToken[adam]'`;
    expect(left.length).toBe(0);
  });

  it('refuses tokens of non-members, more than 100 tokens, and data over 4 KB', async () => {
    const stranger = await push(owner.token, { tokens: ['ExponentPushToken[otto]'] });
    expect(stranger.status).toBe(400);
    expect(stranger.body.code).toBe('VALIDATION_ERROR');
    const notMember = await push(owner.token, { user_ids: [outsider.id] });
    expect(notMember.status).toBe(400);
    expect(notMember.body.code).toBe('VALIDATION_ERROR');
    const many = await push(owner.token, { tokens: Array.from({ length: 101 }, (_, i) => `ExponentPushToken[${i}]`) });
    expect(many.status).toBe(400);
    expect(many.body).toMatchObject({ code: 'VALIDATION_ERROR', error: 'at most 100 tokens in one request' });
    const big = await push(owner.token, { user_ids: [member.id], data: { blob: 'x'.repeat(4100) } });
    expect(big.status).toBe(400);
    expect(big.body).toMatchObject({ code: 'VALIDATION_ERROR', details: 'data' });
  });

  it('a provider that keeps failing is 500 INTERNAL_ERROR', async () => {
    h.expo.failNext(2, 503);
    const res = await push(owner.token, { user_ids: [member.id] });
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ code: 'INTERNAL_ERROR', error: 'push provider answered 503' });
  });
});

describe('send-chat-notification by POST', () => {
  it('the sender’s POST after the worker sent it answers already_sent; an unknown message is 404', async () => {
    await until(async () => {
      const [j] = await h.db.sql`select status from notifications.push_jobs where subject_id = ${messageId}`;
      return j?.status === 'sent';
    }, 'the worker');
    const res = await h.call('send-chat-notification', {
      bearer: member.token,
      body: { message_id: messageId },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ message_id: messageId, already_sent: true, recipients: 2 });
    const none = await h.call('send-chat-notification', {
      bearer: service(),
      body: { message_id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(none.status).toBe(404);
    expect(none.body.code).toBe('NOT_FOUND');
    // A fresh outsider: the others used up their limit above.
    const other = await h.signUp('olaf', 'Olaf Other');
    const stranger = await h.call('send-chat-notification', {
      bearer: other.token,
      body: { message_id: messageId },
    });
    expect(stranger.status).toBe(404);
  });

  it('runs a job the worker has not run yet, once', async () => {
    const [m] = await h.db.sql`insert into public.messages (auction_id, channel_id, user_id, content)
      select auction_id, channel_id, ${admin.id}, 'from the admin' from public.messages where id = ${messageId}
      returning id`;
    // The worker may get there first: then the first POST already answers already_sent. Either way, once.
    const first = await h.call('send-chat-notification', {
      bearer: service(),
      body: { message_id: m.id },
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ message_id: m.id, recipients: 2 });
    const second = await h.call('send-chat-notification', {
      bearer: service(),
      body: { message_id: m.id },
    });
    expect(second.body).toMatchObject({ message_id: m.id, already_sent: true });
    const got = h.expo.delivered().filter((x) => x.data?.message_id === m.id);
    expect(got.length).toBe(2);
  });
});
