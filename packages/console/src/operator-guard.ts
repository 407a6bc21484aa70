// Who may use the console's own endpoints: a super admin's access token only. Whether the token's user is one is
// asked of the database under that user's claims, so the same row-level rule decides as everywhere else.
import type { Context } from 'hono';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** How the server judges a bearer token: no user, a user who is not a super admin, or a super admin. */
export type ConsoleAccess = 'unauthenticated' | 'forbidden' | 'allowed';

/** The 401 or 403 answer for a caller who is not a super admin; undefined for one who is. */
export async function refusal(
  c: Context,
  access: (token: string) => Promise<ConsoleAccess>,
  what: string,
): Promise<Response | undefined> {
  c.header('cache-control', 'no-store');
  const token = c.req.header('authorization')?.match(BEARER)?.[1];
  const verdict = token ? await access(token) : 'unauthenticated';
  if (verdict === 'unauthenticated') {
    c.header('www-authenticate', 'Bearer realm="console"');
    return c.json({ message: 'sign in first' }, 401);
  }
  if (verdict === 'forbidden') return c.json({ message: `only super admins may ${what}` }, 403);
  return undefined;
}
