// supabase-js (the repository's own copy) against the installed server: sign-up, the user's own profile row, an
// auction the service role creates that row-level security hides from a user who is not a member.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './bundle.js';

interface Result {
  data: unknown;
  error: { message: string } | null;
}
interface Query extends PromiseLike<Result> {
  select(columns: string): Query;
  insert(row: object): Query;
  eq(column: string, value: string): Query;
}
interface Client {
  auth: {
    signUp(credentials: { email: string; password: string }): Promise<{
      data: { user: { id: string } | null; session: unknown };
      error: { message: string } | null;
    }>;
  };
  from(table: string): Query;
}
type CreateClient = (url: string, key: string, options?: object) => Client;

/** Each call's name, whether it answered as expected, and what it answered. */
export async function supabaseCalls(url: string, anonKey: string, serviceKey: string) {
  const fromServer = createRequire(join(ROOT, 'apps/server/package.json'));
  const { createClient } = (await import(pathToFileURL(fromServer.resolve('@supabase/supabase-js')).href)) as {
    createClient: CreateClient;
  };
  // Node 20 has no WebSocket of its own, which supabase-js wants for its realtime client even when unused.
  const { default: WebSocket } = await import(pathToFileURL(fromServer.resolve('ws')).href);
  const options = { auth: { persistSession: false, autoRefreshToken: false }, realtime: { transport: WebSocket } };
  const user = createClient(url, anonKey, options);
  const admin = createClient(url, serviceKey, options);
  const results: [string, boolean, string][] = [];
  const record = (name: string, ok: boolean, answer: unknown) => results.push([name, ok, JSON.stringify(answer)]);

  const email = `operator-${Date.now()}@package.test`;
  const signUp = await user.auth.signUp({ email, password: 'a-password-for-the-check-1' });
  const id = signUp.data.user?.id ?? '';
  record('auth.signUp returns a user and a session', !signUp.error && id !== '' && !!signUp.data.session, signUp);
  const own = await user.from('users').select('id').eq('id', id);
  record('the user reads their own row of public.users', !own.error && (own.data as unknown[]).length === 1, own);
  const slug = `package-check-${Date.now()}`;
  const created = await admin.from('auctions').insert({ name: 'Package check', slug }).select('id');
  record('the service role creates an auction', !created.error && (created.data as unknown[]).length === 1, created);
  const hidden = await user.from('auctions').select('id').eq('slug', slug);
  record(
    'row-level security hides it from a non-member',
    !hidden.error && (hidden.data as unknown[]).length === 0,
    hidden,
  );
  return results;
}
