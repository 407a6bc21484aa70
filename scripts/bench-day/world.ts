// The world a day run plays in, made before the clock starts: K times the reference group's auctions, locations,
// submission types, channels, staff and admins (one password hash for all, written straight into auth.users over
// the owner connection, as the demo seed does), the webhook endpoints pointing at the bench's receivers, and every
// user signed in through /auth/v1 (password grant) for the access tokens the generators and subscribers use.
import { hashPassword } from '../../packages/auth-core/src/index.js';
import { loadPostgres } from '../support/postgres-client.js';
import { type Plan, PASSWORD } from './plan.js';

export interface User {
  id: string;
  email: string;
  token: string;
}

export interface WorldAuction {
  id: string;
  locations: Array<{ id: string; typeIds: string[] }>;
  channels: string[];
  staff: User[];
  admins: User[];
  endpoints: Array<{ id: string; receiver: number; path: string }>;
}

export interface World {
  auctions: WorldAuction[];
}

/** The owner connection's type as this module uses it (postgres.js, loaded as the workspace resolves it). */
export interface OwnerSql {
  <T = Record<string, unknown>[]>(strings: TemplateStringsArray, ...values: unknown[]): Promise<T>;
  /** An identifier (`schema.table` too), quoted. */
  (identifier: string): unknown;
  json(value: unknown): unknown;
  end(options?: { timeout?: number }): Promise<void>;
}

export async function ownerConnection(url: string): Promise<OwnerSql> {
  const postgres = await loadPostgres<OwnerSql>();
  return postgres(url, { max: 4, onnotice: () => {} });
}

async function signIn(url: string, anonKey: string, email: string): Promise<{ token: string }> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${url}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers: { apikey: anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    const body = (await res.json()) as { access_token?: string };
    if (res.ok && body.access_token) return { token: body.access_token };
    if (attempt >= 3) throw new Error(`sign-in of ${email}: ${res.status} ${JSON.stringify(body)}`);
  }
}

/** Runs `job` over `items`, `concurrency` at a time. */
export async function pool<T, R>(items: T[], concurrency: number, job: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await job(items[i]!);
      }
    }),
  );
  return out;
}

export async function buildWorld(
  sql: OwnerSql,
  plan: Plan,
  server: { url: string; anonKey: string },
  receiverUrls: string[],
  log: (line: string) => void,
): Promise<World> {
  const hash = await hashPassword(PASSWORD);
  const run = Math.random().toString(36).slice(2, 8);
  const emails = (role: string, count: number) =>
    Array.from({ length: count }, (_, i) => `${role}-${i}-${run}@day.bench.example.com`);
  const staffEmails = emails('staff', plan.staff);
  const adminEmails = emails('admin', plan.admins);
  const users = await sql<Array<{ id: string; email: string }>>`
    insert into auth.users (email, encrypted_password, email_confirmed_at, raw_user_meta_data)
    select e, ${hash}, now(), jsonb_build_object('full_name', initcap(split_part(e, '@', 1)))
    from unnest(${[...staffEmails, ...adminEmails]}::text[]) as e
    returning id, email`;
  await sql`insert into auth.identities (user_id, provider, provider_id, identity_data)
    select u.id, 'email', u.id::text, jsonb_build_object('sub', u.id, 'email', u.email, 'email_verified', true)
    from auth.users u where u.email like ${`%-${run}@day.bench.example.com`}`;
  const idOf = new Map(users.map((u) => [u.email, u.id]));

  const auctions = await sql<Array<{ id: string }>>`
    insert into public.auctions (name, slug, settings)
    select 'Day auction ' || i, ${`day-${run}-`} || i, jsonb_build_object('timezone', 'UTC')
    from generate_series(1, ${plan.auctions}) as i
    returning id`;
  const world: World = { auctions: [] };
  const staffOf = (a: number) => staffEmails.filter((_, i) => i % plan.auctions === a);
  const adminsOf = (a: number) => adminEmails.filter((_, i) => i % plan.auctions === a);
  let endpointIndex = 0;
  for (const [a, { id }] of auctions.entries()) {
    const staff = staffOf(a);
    const admins = adminsOf(a);
    const members = [...staff.map((e) => [idOf.get(e)!, 'team_member']), ...admins.map((e) => [idOf.get(e)!, 'admin'])];
    // The first admin owns the auction (an auction with members keeps an owner).
    if (members.length > staff.length) members[staff.length]![1] = 'owner';
    await sql`insert into public.auction_members (auction_id, user_id, role)
      select ${id}, u, r from unnest(${members.map((m) => m[0])}::uuid[], ${members.map((m) => m[1])}::text[]) as x(u, r)`;
    const locations = await sql<Array<{ id: string }>>`
      insert into public.locations (auction_id, name, address, operating_hours_start, operating_hours_end,
        submission_frequency_minutes)
      select ${id}, 'Lot ' || i, i || ' Auction Road', ${plan.profile.operatingHours.start}::time,
        ${plan.profile.operatingHours.end}::time, ${plan.profile.submissionEveryMinutes}
      from generate_series(1, ${plan.profile.locationsPerAuction}) as i returning id`;
    const types = await sql<Array<{ id: string }>>`
      insert into public.submission_types (auction_id, name)
      select ${id}, t from unnest(array['Front row', 'Back row', 'Overflow']) with ordinality as x(t, o)
      returning id`;
    await sql`insert into public.location_submission_types (location_id, submission_type_id, auction_id, display_order)
      select l, t, ${id}, o from unnest(${locations.map((l) => l.id)}::uuid[]) as l
      cross join unnest(${types.map((t) => t.id)}::uuid[]) with ordinality as x(t, o)`;
    await sql`insert into public.location_assignments (auction_id, location_id, user_id)
      select ${id}, l, u from unnest(${locations.map((l) => l.id)}::uuid[]) as l
      cross join unnest(${staff.map((e) => idOf.get(e)!)}::uuid[]) as u`;
    const channels = await sql<Array<{ id: string }>>`
      insert into public.channels (auction_id, name, is_default)
      select ${id}, 'yard-' || i, i = 1 from generate_series(1, ${plan.profile.channelsPerAuction}) as i returning id`;
    const endpoints: WorldAuction['endpoints'] = [];
    for (let e = 0; e < plan.profile.webhookEndpointsPerAuction; e++) {
      const receiver = endpointIndex % receiverUrls.length;
      const path = `/hook/${endpointIndex++}`;
      const [row] = await sql<Array<{ id: string }>>`
        insert into public.webhook_endpoints (auction_id, url, events, secret)
        values (${id}, ${receiverUrls[receiver] + path}, ${plan.profile.webhookEvents as unknown as string[]},
          ${`day-secret-${run}-${endpointIndex}`.padEnd(32, 'x')})
        returning id`;
      endpoints.push({ id: row!.id, receiver, path });
    }
    const user = (email: string): User => ({ id: idOf.get(email)!, email, token: '' });
    world.auctions.push({
      id,
      locations: locations.map((l) => ({ id: l.id, typeIds: types.map((t) => t.id) })),
      channels: channels.map((c) => c.id),
      staff: staff.map(user),
      admins: admins.map(user),
      endpoints,
    });
  }
  const everyone = world.auctions.flatMap((a) => [...a.staff, ...a.admins]);
  const started = Date.now();
  await pool(everyone, 6, async (u) => Object.assign(u, await signIn(server.url, server.anonKey, u.email)));
  log(`signed in ${everyone.length} users in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return world;
}
