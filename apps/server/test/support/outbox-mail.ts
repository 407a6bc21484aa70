// The local outbox as tests read it: the newest e-mail link sent to an address, aimed at the test server.
import type { TestDatabase } from '@auction-ops/database/testing';

/** Waits for a mail to `to` (links are mailed after the answer) and answers its /auth/v1/verify link. */
export async function verifyLinkMailedTo(db: TestDatabase, to: string, serverUrl: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const [row] = await db.sql<Array<{ text_body: string }>>`
      select text_body from auth.mail_outbox where to_email = ${to} order by created_at desc limit 1`;
    const link = row?.text_body.match(/https?:\/\/\S+\/auth\/v1\/verify\S+/)?.[0];
    if (link) return link.replace(/^https?:\/\/[^/]+/, serverUrl);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no mail to ${to}`);
}
