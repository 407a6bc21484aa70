// PUSH_PROVIDER=outbox: notifications are stored in Postgres instead of going to Expo (every ticket ok), and
// `auction-ops push` (apps/cli) lists them, filtered by token, as text or JSON.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushUsage } from '../../cli/src/command-table.js';
import { pushCommand } from '../../cli/src/commands/push.js';
import { startNotifyHarness, until, type NotifyHarness, type TestUser } from './functions-notify.fixture.js';
import { stdoutOf } from './support/loopback.js';

let h: NotifyHarness;
let owner: TestUser;
let member: TestUser;
let auctionId: string;

beforeAll(async () => {
  h = await startNotifyHarness({ PUSH_PROVIDER: 'outbox' });
  ({
    auctionId,
    users: { olive: owner, tess: member },
  } = await h.arrangeTeam({
    olive: { name: 'Olive Owner', role: 'owner', tokens: ['olive'] },
    tess: { name: 'Tess Team', role: 'team_member', tokens: ['tess'] },
  }));
});
afterAll(async () => {
  await h?.close();
});

const cli = (args: string[]) => stdoutOf(() => pushCommand(pushUsage.parse(args), { ownerUrl: h.db.ownerUrl }));

describe('the push outbox', () => {
  it('stores send-push-notifications and chat pushes; `auction-ops push` lists them', async () => {
    expect(await cli([])).toBe('the push outbox is empty\n');
    const res = await h.call('send-push-notifications', {
      bearer: owner.token,
      body: {
        auction_id: auctionId,
        title: 'Lot A',
        body: 'Closes at 5',
        notification_type: 'notice',
        user_ids: [member.id],
      },
    });
    expect(res.status).toBe(200);
    const [stored] = await h.db.sql`select id, token, title, body, data, priority from notifications.push_outbox`;
    expect(res.body).toEqual({
      sent: 1,
      failed: 0,
      removed_tokens: 0,
      tickets: [{ token: 'ExponentPushToken[tess]', status: 'ok', id: stored.id }],
    });
    expect(stored).toMatchObject({
      token: 'ExponentPushToken[tess]',
      title: 'Lot A',
      body: 'Closes at 5',
      data: { notification_type: 'notice' },
      priority: 'default',
    });
    expect(h.expo.requests.length).toBe(0);

    const { data: channel } = await owner.client
      .from('channels')
      .insert({ auction_id: auctionId, name: 'yard' })
      .select('id')
      .single();
    await member.client.from('messages').insert({ auction_id: auctionId, channel_id: channel!.id, content: 'Done' });
    await until(async () => {
      const [r] = await h.db
        .sql`select count(*)::int as n from notifications.push_outbox where token = 'ExponentPushToken[olive]'`;
      return r.n === 1;
    }, 'the chat push in the outbox');

    const all = await cli(['list']);
    expect(all).toContain('ExponentPushToken[tess]  [default]\n  Lot A\n  Closes at 5\n');
    expect(all).toContain('ExponentPushToken[olive]  [default]\n  Tess Team in #yard\n  Done\n');
    const one = await cli(['--token', 'ExponentPushToken[olive]', '--json']);
    const parsed = JSON.parse(one) as Array<{ token: string; title: string }>;
    expect(parsed.map((e) => [e.token, e.title])).toEqual([['ExponentPushToken[olive]', 'Tess Team in #yard']]);
    await expect(cli(['--limit', '0'])).rejects.toThrow(/--limit must be/);
    await expect(cli(['frobnicate'])).rejects.toThrow(/unknown action "frobnicate"/);
  });
});
