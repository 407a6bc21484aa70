// Chat notifications end to end: a message inserted with supabase-js is queued in its transaction (event outbox)
// and the server's worker pushes it to exactly the right tokens of a fake Expo server; DeviceNotRegistered tokens
// are deleted; an Expo outage followed by recovery loses nothing and repeats nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNotifyHarness, until, type NotifyHarness, type TestUser } from './functions-notify.fixture.js';

let h: NotifyHarness;
let sender: TestUser;
let alice: TestUser; // preference all, mentioned, two devices
let bea: TestUser; // preference mentions, mentioned
let carl: TestUser; // preference mentions, not mentioned
let dan: TestUser; // preference none, mentioned
let eve: TestUser; // preference all, not mentioned
let auctionId: string;
let channelId: string;

beforeAll(async () => {
  h = await startNotifyHarness();
  ({
    auctionId,
    users: { sam: sender, alice, bea, carl, dan, eve },
  } = await h.arrangeTeam({
    sam: { name: 'Sam Sender', role: 'owner', tokens: ['sam'] },
    alice: { name: 'Alice Able', role: 'admin', tokens: ['alice-phone', ['alice-tablet', 'android']] },
    bea: { name: 'Bea Bright', role: 'team_member', tokens: ['bea'] },
    carl: { name: 'Carl Cole', role: 'team_member', tokens: ['carl'] },
    dan: { name: 'Dan Dole', role: 'team_member', tokens: ['dan'] },
    eve: { name: 'Eve East', role: 'team_member', tokens: [['eve', 'android']] },
  }));
  const { data, error } = await sender.client
    .from('channels')
    .insert({ auction_id: auctionId, name: 'general' })
    .select('id')
    .single();
  if (error) throw error;
  channelId = data.id;
  for (const [u, pref] of [
    [bea, 'mentions'],
    [carl, 'mentions'],
    [dan, 'none'],
  ] as const) {
    const r = await u.client
      .from('channel_notification_preferences')
      .insert({ channel_id: channelId, auction_id: auctionId, preference: pref });
    if (r.error) throw r.error;
  }
});
afterAll(async () => {
  await h?.close();
});

async function post(content: string): Promise<string> {
  const { data, error } = await sender.client
    .from('messages')
    .insert({ auction_id: auctionId, channel_id: channelId, content })
    .select('id')
    .single();
  if (error) throw error;
  return data.id as string;
}

const forMessage = (id: string) => h.expo.delivered().filter((m) => m.data?.message_id === id);

async function jobOf(id: string) {
  const [job] = await h.db.sql`select status, result from notifications.push_jobs where subject_id = ${id}`;
  return job;
}

describe('send-chat-notification from the message insert', () => {
  it('an @mention among five members besides the sender reaches exactly the right tokens, mentions first', async () => {
    const content = `@Alice Able and @bea: the north lot needs a recount before noon. ${'x'.repeat(80)}`;
    const id = await post(content);
    await until(async () => (await jobOf(id))?.status === 'sent', 'the job to finish');
    const sent = forMessage(id);
    expect(sent.map((m) => m.to)).toEqual([
      'ExponentPushToken[alice-phone]',
      'ExponentPushToken[alice-tablet]',
      'ExponentPushToken[bea]',
      'ExponentPushToken[eve]',
    ]);
    expect(sent.map((m) => m.priority)).toEqual(['high', 'high', 'high', 'default']);
    const body = `${content.slice(0, 99)}…`;
    for (const m of sent) {
      expect(m.title).toBe('Sam Sender in #general');
      expect(m.body).toBe(body);
      expect(Array.from(m.body!).length).toBe(100);
      expect(m.data).toEqual({
        type: 'chat_message',
        auction_id: auctionId,
        channel_id: channelId,
        message_id: id,
        deep_link: `https://app.example.test/chat/${channelId}?message=${id}`,
      });
    }
    expect((await jobOf(id)).result).toEqual({ message_id: id, recipients: 3, sent: 4, skipped: 2, removed_tokens: 0 });
  });

  it('a short message is sent whole, without an ellipsis', async () => {
    const id = await post('Lot B is full');
    await until(async () => (await jobOf(id))?.status === 'sent', 'the job to finish');
    expect(forMessage(id).map((m) => [m.to, m.body])).toEqual([
      ['ExponentPushToken[alice-phone]', 'Lot B is full'],
      ['ExponentPushToken[alice-tablet]', 'Lot B is full'],
      ['ExponentPushToken[eve]', 'Lot B is full'],
    ]);
  });

  it('a token Expo answers DeviceNotRegistered for is deleted from user_push_tokens', async () => {
    h.expo.unregistered.add('ExponentPushToken[alice-tablet]');
    const id = await post('Gate 4 is open');
    await until(async () => (await jobOf(id))?.status === 'sent', 'the job to finish');
    expect(forMessage(id).map((m) => m.to)).toEqual(['ExponentPushToken[alice-phone]', 'ExponentPushToken[eve]']);
    const rows = await h.db.sql`select token from public.user_push_tokens where user_id = ${alice.id} order by token`;
    expect(rows.map((r) => r.token)).toEqual(['ExponentPushToken[alice-phone]']);
    expect((await jobOf(id)).result).toMatchObject({ sent: 2, removed_tokens: 1 });
  });

  it('Expo failing with 500 and then recovering loses no notification and sends none twice', async () => {
    const before = h.expo.requests.length;
    // More failures than one job attempt retries (PUSH_RETRIES=1): the job itself is retried later.
    h.expo.failNext(3, 500);
    const id = await post('Inspection at 3pm');
    await until(async () => (await jobOf(id))?.status === 'sent', 'the job to recover', 30_000);
    const failed = h.expo.requests.slice(before).filter((r) => r.status === 500);
    expect(failed.length).toBe(3);
    expect(forMessage(id).map((m) => m.to)).toEqual(['ExponentPushToken[alice-phone]', 'ExponentPushToken[eve]']);
    const [job] = await h.db.sql`select attempts, last_error from notifications.push_jobs where subject_id = ${id}`;
    expect(job.attempts).toBe(2);
    expect(job.last_error).toBeNull();
  });

  it('a message another member posts notifies the sender of the first one, not its own author', async () => {
    const { data, error } = await eve.client
      .from('messages')
      .insert({ auction_id: auctionId, channel_id: channelId, content: 'On my way, @sam' })
      .select('id')
      .single();
    if (error) throw error;
    await until(async () => (await jobOf(data.id))?.status === 'sent', 'the job to finish');
    const sent = forMessage(data.id);
    expect(sent.map((m) => [m.to, m.priority])).toEqual([
      ['ExponentPushToken[sam]', 'high'],
      ['ExponentPushToken[alice-phone]', 'default'],
    ]);
    expect(sent[0].title).toBe('Eve East in #general');
  });
});
