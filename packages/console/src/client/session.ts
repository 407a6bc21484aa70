// The console's clients on this server's own origin, with the anon key from the page: auth-js for the session
// and postgrest-js for data (the two parts of supabase-js it uses, so realtime and storage stay out of the
// bundle), and the super-admin check every page relies on (is_super_admin, the function the policies use).
import { AuthClient } from '@supabase/auth-js';
import { PostgrestClient } from '@supabase/postgrest-js';

const anonKey = document.body.dataset.anonKey ?? '';

export const auth = new AuthClient({
  url: `${location.origin}/auth/v1`,
  headers: { apikey: anonKey, Authorization: `Bearer ${anonKey}` },
  storageKey: 'auction-ops-console',
  persistSession: true,
  autoRefreshToken: true,
  detectSessionInUrl: false,
});

async function accessToken(): Promise<string | undefined> {
  const { data } = await auth.getSession();
  return data.session?.access_token;
}

/** A /rest/v1 client carrying the signed-in user's access token. */
export async function rest(): Promise<PostgrestClient> {
  const token = (await accessToken()) ?? anonKey;
  return new PostgrestClient(`${location.origin}/rest/v1`, {
    headers: { apikey: anonKey, Authorization: `Bearer ${token}` },
  });
}

export async function isSuperAdmin(): Promise<boolean> {
  const { data, error } = await (await rest()).rpc('is_super_admin');
  if (error) throw new Error(error.message);
  return data === true;
}

/** A /console/api endpoint with the signed-in user's token; its JSON, or its message as the error. */
export async function consoleApi<T = Record<string, unknown>>(path: string, method = 'GET'): Promise<T> {
  const response = await fetch(`/console/api/${path}`, {
    method,
    headers: { authorization: `Bearer ${(await accessToken()) ?? ''}` },
  });
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(String(body.message ?? response.status));
  return body as T;
}

/** A /console/api download with the signed-in user's token, saved under the name the server gives it. */
export async function consoleDownload(path: string): Promise<void> {
  const response = await fetch(`/console/api/${path}`, {
    headers: { authorization: `Bearer ${(await accessToken()) ?? ''}` },
  });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    throw new Error(String(body.message ?? response.status));
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'download';
  const url = URL.createObjectURL(await response.blob());
  const link = Object.assign(document.createElement('a'), { href: url, download: name });
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** GET /console/api/status. */
export const fetchStatus = () => consoleApi('status');
