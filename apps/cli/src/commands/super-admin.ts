// `auction-ops super-admin grant|revoke|list [email]`: manages system-wide administrators.
import postgres from 'postgres';
import { withDatabase } from '../database.js';
import { UsageError } from '../usage-error.js';

export async function superAdminCommand({
  action,
  email,
}: {
  action: 'grant' | 'revoke' | 'list';
  email?: string;
}): Promise<void> {
  await withDatabase(async (db) => {
    const sql = postgres(db.ownerUrl, { max: 1, onnotice: () => {} });
    try {
      if (action === 'list') {
        const rows =
          await sql`select u.email, s.created_at from public.super_admins s join public.users u on u.id = s.user_id
            order by u.email`;
        for (const r of rows) console.log(`${r.email}\t${r.created_at.toISOString()}`);
        if (rows.length === 0) console.log('no super admins');
        return;
      }
      const [user] = await sql`select id from public.users where lower(email) = lower(${email!})`;
      if (!user) throw new UsageError(`no user with e-mail ${email}`);
      if (action === 'grant') {
        await sql`insert into public.super_admins (user_id) values (${user.id}) on conflict do nothing`;
        console.log(`${email} is a super admin`);
      } else {
        await sql`delete from public.super_admins where user_id = ${user.id}`;
        console.log(`${email} is no longer a super admin`);
      }
    } finally {
      await sql.end();
    }
  });
}
