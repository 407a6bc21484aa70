// The console's one supabase-js client, on this server's own origin with the anon key from the page, and the
// super-admin check every page relies on (is_super_admin, the same function the policies use).
import { createClient, type SupabaseClient } from '@supabase/supabase-js';

export const supabase: SupabaseClient = createClient(location.origin, document.body.dataset.anonKey ?? '', {
  auth: { storageKey: 'auction-ops-console' },
});

export async function isSuperAdmin(): Promise<boolean> {
  const { data, error } = await supabase.rpc('is_super_admin');
  if (error) throw new Error(error.message);
  return data === true;
}

/** GET /console/api/status with the signed-in user's token. */
export async function fetchStatus(): Promise<Record<string, unknown>> {
  const { data } = await supabase.auth.getSession();
  const response = await fetch('/console/api/status', {
    headers: { authorization: `Bearer ${data.session?.access_token ?? ''}` },
  });
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(String(body.message ?? response.status));
  return body;
}
