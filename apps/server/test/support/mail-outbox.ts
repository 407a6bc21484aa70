// Reads auth mail from the local outbox (no mail provider configured): the newest message's code and link.
import type { TestDatabase } from '@auction-ops/database/testing';

/** The newest mail to `to` after `count` earlier ones: its code and its link (aimed at `serverUrl`). */
export async function mailTo(
  db: TestDatabase,
  serverUrl: string,
  to: string,
  count = 1,
): Promise<{ code: string; link: string }> {
  for (let i = 0; i < 100; i++) {
    const rows = await db.sql<Array<{ text_body: string }>>`
      select text_body from auth.mail_outbox where to_email = ${to} order by created_at desc`;
    if (rows.length >= count) {
      const text = rows[0]!.text_body;
      return {
        code: text.match(/code: (\d{6})/)![1]!,
        // A code-only mail (reauthentication) has no link.
        link: (text.match(/https?:\/\/\S+\/auth\/v1\/verify\S+/)?.[0] ?? '').replace(/^https?:\/\/[^/]+/, serverUrl),
      };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no mail to ${to}`);
}
