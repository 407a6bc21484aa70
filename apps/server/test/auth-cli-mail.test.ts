// `auction-ops mail` (apps/cli) over the outbox the auth family fills: list and show.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations, outboxMailer, linkMail } from '@auction-ops/auth-core';
import { mailUsage } from '../../cli/src/command-table.js';
import { mailCommand } from '../../cli/src/commands/mail.js';
import { stdoutOf } from './support/loopback.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase([authMigrations]);
});
afterAll(async () => {
  await db?.drop();
});

const run = (args: string[]) => stdoutOf(() => mailCommand(mailUsage.parse(args), { ownerUrl: db.ownerUrl }));

describe('auction-ops mail', () => {
  it('lists the outbox, filters by address and shows a message', async () => {
    expect(await run([])).toBe('the outbox is empty\n');
    const mailer = outboxMailer(db.sql, 'ops@example.com');
    const id = await mailer.send(
      linkMail('recovery', 'ann@example.com', 'http://h.test/auth/v1/verify?token=t1', 3600, '042917'),
    );
    await mailer.send({ to: 'bob@example.com', subject: 'Hello Bob', text: 'hi' });
    const list = await run(['list']);
    expect(list.split('\n')[0]).toMatch(/^ID\s+SENT\s+TO\s+CODE\s+SUBJECT$/);
    // Development: the sign-in code is in the listing, next to its address.
    expect(list).toMatch(/ann@example\.com\s+042917\s+Reset your password/);
    expect(list).toMatch(/bob@example\.com\s+-\s+Hello Bob/);
    expect(list).toContain('Hello Bob');
    const filtered = await run(['--to', 'ann@example.com']);
    expect(filtered).not.toContain('Hello Bob');
    const shown = await run(['show', id]);
    expect(shown).toContain('To:       ann@example.com');
    expect(shown).toContain('http://h.test/auth/v1/verify?token=t1');
    expect(shown).toContain('Or enter this code: 042917');
    expect(await run(['show', 'latest', '--to', 'bob@example.com'])).toContain('Subject:  Hello Bob');
    await expect(run(['show', '00000000-0000-0000-0000-000000000000'])).rejects.toThrow(/no message/);
    await expect(run(['frobnicate'])).rejects.toThrow(/unknown action "frobnicate"/);
  });
});
