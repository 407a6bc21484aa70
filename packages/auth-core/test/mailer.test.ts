// The SMTP provider against a tiny SMTP server on loopback, and the local outbox on a real database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server, type AddressInfo } from 'node:net';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { authMigrations, createMailer, listOutbox, getOutboxMessage, linkMail } from '../src/index.js';

interface Received {
  from: string;
  to: string[];
  data: string;
}

/** Enough of RFC 5321 for one client: greeting, EHLO, MAIL, RCPT, DATA, QUIT. */
function fakeSmtp(received: Received[]): Server {
  return createServer((socket) => {
    let mail: Received = { from: '', to: [], data: '' };
    let inData = false;
    let buffer = '';
    socket.write('220 fake ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            received.push(mail);
            mail = { from: '', to: [], data: '' };
            socket.write('250 OK queued\r\n');
          } else mail.data += `${line.startsWith('..') ? line.slice(1) : line}\n`;
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250-fake\r\n250 8BITMIME\r\n');
        else if (verb === 'MAIL') {
          mail.from = line;
          socket.write('250 OK\r\n');
        } else if (verb === 'RCPT') {
          mail.to.push(line);
          socket.write('250 OK\r\n');
        } else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') {
          socket.end('221 bye\r\n');
        } else socket.write('250 OK\r\n');
      }
    });
  });
}

let db: TestDatabase;
let smtp: Server;
const received: Received[] = [];

beforeAll(async () => {
  db = await createTestDatabase([authMigrations]);
  smtp = fakeSmtp(received);
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await db?.drop();
  await new Promise((resolve) => smtp?.close(resolve));
});

describe('mail providers', () => {
  it('sends through SMTP', async () => {
    const mailer = createMailer(db.sql, {
      from: 'Ops <ops@example.com>',
      smtpUrl: `smtp://127.0.0.1:${(smtp.address() as AddressInfo).port}`,
    });
    expect(mailer.provider).toBe('smtp');
    await mailer.send(linkMail('recovery', 'ann@example.com', 'http://x.test/auth/v1/verify?token=abc', 3600));
    await mailer.close?.();
    expect(received).toHaveLength(1);
    expect(received[0].from).toContain('ops@example.com');
    expect(received[0].to[0]).toContain('ann@example.com');
    expect(received[0].data).toMatch(/Subject: Reset your password/);
    // Bodies travel quoted-printable: '=' becomes '=3D'.
    expect(received[0].data).toMatch(/verify\?token=(3D)?abc/);
  });

  it('stores in the outbox by default and lists newest first', async () => {
    const mailer = createMailer(db.sql, { from: 'ops@example.com' });
    expect(mailer.provider).toBe('outbox');
    const first = await mailer.send({ to: 'bob@example.com', subject: 'one', text: 'hello' });
    await mailer.send({ to: 'carl@example.com', subject: 'two', text: 'hi' });
    const all = await listOutbox(db.sql);
    expect(all.map((m) => m.subject)).toEqual(['two', 'one']);
    expect((await listOutbox(db.sql, { to: 'BOB@example.com' })).map((m) => m.id)).toEqual([first]);
    expect((await getOutboxMessage(db.sql, first))?.text_body).toBe('hello');
    expect(await getOutboxMessage(db.sql, 'not-a-uuid')).toBeUndefined();
  });
});
