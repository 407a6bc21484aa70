// What the upgrade test puts into the old release and expects the new one to keep: two users who administer one
// auction each, a location and a submission per auction written by their own sessions (RLS-checked), objects of
// random bytes, a refresh token never used, and a webhook delivery queued for a receiver that is down.
import { createHash, randomBytes } from 'node:crypto';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';

export const PASSWORD = 'upgrade-in-place-pw-9';
export const BUCKET = 'upgrade-photos';

class NoWebSocket {
  constructor() {
    throw new Error('the upgrade test opens no realtime channels');
  }
}

/** supabase-js as a client app uses it, minus the session persistence and timers a test does not want. */
export function client(url: string, key: string, accessToken?: string): SupabaseClient {
  return createClient(url, key, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: NoWebSocket as never },
    ...(accessToken ? { global: { headers: { Authorization: `Bearer ${accessToken}` } } } : {}),
  });
}

export interface Member {
  email: string;
  auctionId: string;
  locationId: string;
  submissionIds: string[];
}

export interface Arranged {
  alice: Member;
  bob: Member;
  /** Object name to the SHA-256 of its bytes. */
  objects: Map<string, string>;
  /** Alice's, from a sign-in whose session is never used or refreshed before the upgrade. */
  refreshToken: string;
  endpointId: string;
}

function check<T>(result: { data: T; error: unknown }, what: string): NonNullable<T> {
  if (result.error || result.data == null) throw new Error(`${what}: ${JSON.stringify(result.error)}`);
  return result.data as NonNullable<T>;
}

export async function signIn(url: string, anonKey: string, email: string) {
  const { data, error } = await client(url, anonKey).auth.signInWithPassword({ email, password: PASSWORD });
  if (error || !data.session) throw new Error(`sign-in ${email}: ${error?.message}`);
  return data.session;
}

/** A user as the admin of a new auction, with a location and one submission written through their own session. */
async function adminOfAuction(url: string, keys: Keys, name: string): Promise<Member> {
  const admin = client(url, keys.anon, keys.service);
  const email = `${name}@upgrade.test`;
  const created = await admin.auth.admin.createUser({ email, password: PASSWORD, email_confirm: true });
  if (created.error || !created.data.user) throw new Error(`create ${email}: ${created.error?.message}`);
  const user = created.data.user;
  const auction = check(
    await admin
      .from('auctions')
      .insert({ name: `Auction of ${name}`, slug: `upgrade-${name}` })
      .select('id')
      .single(),
    'auction',
  ) as { id: string };
  check(
    await admin
      .from('auction_members')
      .insert({ auction_id: auction.id, user_id: user.id, role: 'admin' })
      .select('id'),
    'membership',
  );
  const own = client(url, keys.anon, (await signIn(url, keys.anon, email)).access_token);
  const location = check(
    await own
      .from('locations')
      .insert({ auction_id: auction.id, name: `Lot of ${name}` })
      .select('id')
      .single(),
    'location',
  ) as { id: string };
  const member: Member = { email, auctionId: auction.id, locationId: location.id, submissionIds: [] };
  await submit(url, keys.anon, member, `before upgrade by ${name}`);
  return member;
}

/** A submission through the member's own session; returns its id. */
export async function submit(url: string, anonKey: string, member: Member, notes: string): Promise<string> {
  const own = client(url, anonKey, (await signIn(url, anonKey, member.email)).access_token);
  const row = check(
    await own
      .from('lot_submissions')
      .insert({ auction_id: member.auctionId, location_id: member.locationId, notes })
      .select('id')
      .single(),
    `submission ${notes}`,
  ) as { id: string };
  member.submissionIds.push(row.id);
  return row.id;
}

export interface Keys {
  anon: string;
  service: string;
}

export async function arrange(url: string, keys: Keys, receiverUrl: string, secret: string): Promise<Arranged> {
  const alice = await adminOfAuction(url, keys, 'alice');
  const bob = await adminOfAuction(url, keys, 'bob');
  const admin = client(url, keys.anon, keys.service);
  check(await admin.storage.createBucket(BUCKET), 'bucket');
  const objects = new Map<string, string>();
  for (const [name, size] of [
    ['small.bin', 1_000],
    ['photos/medium.jpg', 300_000],
    ['photos/large.bin', 3_000_000],
  ] as const) {
    const bytes = randomBytes(size);
    check(await admin.storage.from(BUCKET).upload(name, bytes, { contentType: 'application/octet-stream' }), name);
    objects.set(name, createHash('sha256').update(bytes).digest('hex'));
  }
  const own = client(url, keys.anon, (await signIn(url, keys.anon, alice.email)).access_token);
  const endpoint = check(
    await own
      .from('webhook_endpoints')
      .insert({ auction_id: alice.auctionId, url: receiverUrl, events: ['submission.created'], secret })
      .select('id')
      .single(),
    'webhook endpoint',
  ) as { id: string };
  // The event the receiver must get after the upgrade: a submission made once the endpoint exists.
  await submit(url, keys.anon, alice, 'queued for the webhook');
  const refreshToken = (await signIn(url, keys.anon, alice.email)).refresh_token;
  return { alice, bob, objects, refreshToken, endpointId: endpoint.id };
}

export async function sha256Of(url: string, keys: Keys, name: string): Promise<string> {
  const blob = check(await client(url, keys.anon, keys.service).storage.from(BUCKET).download(name), name);
  return createHash('sha256')
    .update(Buffer.from(await blob.arrayBuffer()))
    .digest('hex');
}
