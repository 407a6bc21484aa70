// GET /console/api/auctions/:auction/export: super admins download an auction's archive (without webhook secrets);
// anyone else is refused, and an unknown auction (or a name no auction can have) is a 404.
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readArchiveHeader } from '@auction-ops/auction-data';
import { type SignedUpUser, startTestServer, type TestServer } from './support/test-server.js';

let server: TestServer;
let root: SignedUpUser;
let mia: SignedUpUser;
let auction: { id: string; slug: string };

beforeAll(async () => {
  server = await startTestServer();
  [root, mia] = await Promise.all([server.signUp('root@export.test'), server.signUp('mia@export.test')]);
  await server.db.sql`insert into public.super_admins (user_id) values (${root.id})`;
  [auction] = await server.db.sql<{ id: string; slug: string }[]>`
    insert into public.auctions (name, slug, created_by) values ('Export me', 'export-me', ${mia.id})
    returning id, slug`;
  await server.db.sql`insert into public.locations (auction_id, name) values (${auction!.id}, 'North lot')`;
  await server.db.sql`insert into public.webhook_endpoints (auction_id, url, events, secret)
    values (${auction!.id}, 'https://hooks.example.com/x', ${['submission.created']}, 'whsec_never_exported')`;
});

afterAll(async () => {
  await server?.stop();
});

const download = (ref: string, token?: string) =>
  fetch(
    `${server.url}/console/api/auctions/${ref}/export`,
    token ? { headers: { authorization: `Bearer ${token}` } } : {},
  );

it('refuses everyone but super admins, even the auction’s own owner', async () => {
  expect((await download(auction.id)).status).toBe(401);
  const owner = await download(auction.id, mia.token);
  expect(owner.status).toBe(403);
  expect(await owner.json()).toEqual({ message: 'only super admins may export auctions' });
});

it('answers 404 for an unknown auction', async () => {
  expect((await download('no-such-auction', root.token)).status).toBe(404);
});

it('answers 404 in the console’s shape for a name PostgreSQL text cannot hold (%00), not a 500', async () => {
  const response = await download('%00', root.token);
  expect(response.status).toBe(404);
  expect(await response.json()).toEqual({ message: 'no such auction' });
});

it('streams the archive to a super admin, by id or slug, without the webhook secrets', async () => {
  for (const ref of [auction.id, auction.slug]) {
    const response = await download(ref, root.token);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/gzip');
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="export-me-\d{4}-\d\d-\d\d\.auction\.gz"$/,
    );
    const bytes = Buffer.from(await response.arrayBuffer());
    const header = await readArchiveHeader(Readable.from([bytes]));
    expect(header).toMatchObject({ auction: { id: auction.id, slug: 'export-me' }, secrets: false });
    const { gunzipSync } = await import('node:zlib');
    const text = gunzipSync(bytes).toString('latin1');
    expect(text).toContain('North lot');
    expect(text).not.toContain('whsec_never_exported');
  }
});
