// Object links (domain/0032-auction-object-links.sql, domain-storage/0004-deleted-auction-objects.sql; issue 52,
// findings 3 and 4) over the real server and supabase-js: a URL naming another user's stored object is refused
// wherever an auction's rows take URLs (the dashboard's branding upsert, the apps' submission RPC, an image
// message), super admins included; the apps' own flows (own folder, the auction's folder, a URL copied inside the
// auction, an external URL) pass and link what they name; a borrowed URL that got in before the upgrade leaves the
// victim's object alone through export, delete, purge now and re-import; the purge removes an auction's linked
// objects but keeps one another live auction links; a deleted auction's objects are served only to their uploader.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportAuction, importAuction } from '@auction-ops/auction-data';
import { createFsBackend, type StorageBackend } from '@auction-ops/storage';
import { purgeDueAuctions } from '../src/auctions/auction-purge.js';
import { until } from './support/loopback.js';
import { startTestServer, type SignedUpUser, type TestServer } from './support/test-server.js';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);
const CONTRACT = Buffer.from('victim contract: private terms, do not share\n');
const DAY = 86_400_000;

let t: TestServer;
let backend: StorageBackend;
let victim: SignedUpUser;
let attacker: SignedUpUser;
let owner: SignedUpUser;
let staff: SignedUpUser;
let otherOwner: SignedUpUser;
let root: SignedUpUser;
let x: string; // the attacker's auction
let a: string; // the auction whose flows must keep working
let b: string; // another live auction staff belongs to
let contractUrl: string; // authenticated URL of the victim's private object
let photoUrl: string; // public URL of the victim's photo

const storageUrl = (kind: string, bucket: string, name: string) =>
  `${t.url}/storage/v1/object/${kind}${bucket}/${name}`;

async function createAuction(user: SignedUpUser, slug: string): Promise<string> {
  const { data, error } = await user.client.from('auctions').insert({ name: slug, slug }).select('id').single();
  if (error) throw error;
  return data.id as string;
}

async function upload(user: SignedUpUser, bucket: string, name: string, bytes = PNG, type = 'image/png') {
  const up = await user.client.storage.from(bucket).upload(name, bytes, { contentType: type });
  if (up.error) throw up.error;
  return user.client.storage.from(bucket).getPublicUrl(name).data.publicUrl;
}

const links = async (auctionId: string) =>
  (
    await t.db.sql<{ object: string }[]>`
      select bucket_id || '/' || name as object from domain.auction_object_links where auction_id = ${auctionId}
       order by 1`
  ).map((r) => r.object);

const objectVersion = async (bucket: string, name: string) =>
  (await t.db.sql`select version from storage.objects where bucket_id = ${bucket} and name = ${name}`)[0]?.version as
    | string
    | undefined;

const bytesOnDisk = (bucket: string, version: string) =>
  readFileSync(join(t.dataDir, 'storage', 'objects', bucket, version.slice(0, 2), version));

/** A location of the auction with one submission type, the user assigned to it. */
async function submissionSetup(auctionId: string, userId: string) {
  const [loc] = await t.db
    .sql`insert into public.locations (auction_id, name) values (${auctionId}, 'Lot') returning id`;
  const [type] = await t.db.sql`insert into public.submission_types (auction_id, name) values (${auctionId}, 'Sedan')
    returning id`;
  await t.db.sql`insert into public.location_submission_types (location_id, submission_type_id, auction_id)
    values (${loc!.id}, ${type!.id}, ${auctionId})`;
  await t.db.sql`insert into public.location_assignments (auction_id, location_id, user_id)
    values (${auctionId}, ${loc!.id}, ${userId})`;
  return { location: loc!.id as string, type: type!.id as string };
}

async function channelOf(user: SignedUpUser, auctionId: string): Promise<string> {
  const ch = await user.client.from('channels').insert({ auction_id: auctionId, name: 'yard' }).select('id').single();
  if (ch.error) throw ch.error;
  return ch.data.id as string;
}

function expectRefused(res: { status: number; error: { code?: string; message?: string; hint?: string } | null }) {
  expect(res.status).toBe(403);
  expect(res.error?.code).toBe('42501');
  expect(res.error?.message).toMatch(/outside your own folder and this auction's/);
  expect(res.error?.hint).toMatch(/own folder/);
}

async function exportToBuffer(auction: string): Promise<{ bytes: Buffer; objects: string[] }> {
  const out = new PassThrough();
  const parts: Buffer[] = [];
  out.on('data', (b: Buffer) => parts.push(b));
  const { manifest } = await exportAuction({ sql: t.db.sql, backend, auction, out });
  return { bytes: Buffer.concat(parts), objects: Object.keys(manifest.objects) };
}

beforeAll(async () => {
  t = await startTestServer({ AUTH_RATE_LIMIT_SIGN_UP: '100', WEBHOOK_DISPATCHER_ENABLED: 'false' });
  backend = createFsBackend(join(t.dataDir, 'storage'));
  [victim, attacker, owner, staff, otherOwner, root] = await Promise.all(
    ['victim', 'attacker', 'owner', 'staff', 'other', 'root'].map((n) => t.signUp(`${n}@links.test`, n)),
  );
  await t.db.sql`insert into public.super_admins (user_id) values (${root.id})`;
  await t.db.sql`insert into storage.buckets (id, name, public) values ('private-docs', 'private-docs', false)`;
  await upload(victim, 'private-docs', `${victim.id}/contract.txt`, CONTRACT, 'text/plain');
  contractUrl = storageUrl('authenticated/', 'private-docs', `${victim.id}/contract.txt`);
  photoUrl = await upload(victim, 'lot-images', `${victim.id}/photo.png`);
  x = await createAuction(attacker, 'borrower');
  a = await createAuction(owner, 'yard-a');
  b = await createAuction(otherOwner, 'yard-b');
  await t.db.sql`insert into public.auction_members (auction_id, user_id, role)
    values (${a}, ${staff.id}, 'team_member'), (${b}, ${staff.id}, 'team_member')`;
});
afterAll(async () => {
  await backend?.close();
  await t?.stop();
});

describe('a borrowed URL is refused', () => {
  it("in the branding page's upsert, in every URL form, for the auction's owner", async () => {
    const name = `${victim.id}/contract.txt`;
    const forms = [
      contractUrl,
      storageUrl('', 'private-docs', name),
      storageUrl('public/', 'private-docs', name),
      `${storageUrl('sign/', 'private-docs', name)}?token=whatever`,
      `https://elsewhere.example/storage/v1/render/image/authenticated/private-docs/${name}?width=10`,
      `/storage/v1/object/authenticated/private-docs/${victim.id.replace(/-/g, '%2D')}/contract%2Etxt`,
    ];
    for (const url of forms) {
      const res = await attacker.client.from('auction_branding').upsert({ auction_id: x, logo_url: url });
      expectRefused(res);
    }
    expect(await links(x)).toEqual([]);
  });

  it('for a super admin too (pasting a URL on a branding page hands nothing over)', async () => {
    const res = await root.client.from('auction_branding').upsert({ auction_id: x, logo_url: contractUrl });
    expectRefused(res);
  });

  it('in the submission RPC, as the submission image and as an entry image', async () => {
    const s = await submissionSetup(x, attacker.id);
    const asImage = await attacker.client.rpc('create_lot_submission_with_entries', {
      p_location_id: s.location,
      p_entries: [{ submission_type_id: s.type, car_count: 2 }],
      p_image_url: photoUrl,
    });
    expectRefused(asImage);
    const asEntry = await attacker.client.rpc('create_lot_submission_with_entries', {
      p_location_id: s.location,
      p_entries: [{ submission_type_id: s.type, car_count: 2, image_url: photoUrl }],
    });
    expectRefused(asEntry);
    const [n] = await t.db.sql`select count(*)::int as n from public.lot_submissions where auction_id = ${x}`;
    expect(n!.n).toBe(0);
  });

  it('in an image message, and in an edit that turns a message into one', async () => {
    const channel = await channelOf(attacker, x);
    const res = await attacker.client
      .from('messages')
      .insert({ auction_id: x, channel_id: channel, content: photoUrl, message_type: 'image' });
    expectRefused(res);
    // A text message may mention any URL: it names no object of the auction.
    const text = await attacker.client
      .from('messages')
      .insert({ auction_id: x, channel_id: channel, content: `look ${photoUrl}` })
      .select('id')
      .single();
    expect(text.error).toBeNull();
    const edit = await attacker.client
      .from('messages')
      .update({ content: photoUrl, message_type: 'image' })
      .eq('id', text.data!.id)
      .select();
    expectRefused(edit);
    expect(await links(x)).toEqual([]);
  });
});

describe("the apps' own flows", () => {
  let s: { location: string; type: string };
  let lotUrl: string;
  let logoUrl: string;
  let sharedUrl: string;

  it('staff upload to their own folder, then submit with that URL (RPC): accepted and linked', async () => {
    s = await submissionSetup(a, staff.id);
    lotUrl = await upload(staff, 'lot-images', `${staff.id}/1700000000_lot.png`);
    const entryUrl = await upload(staff, 'lot-images', `${staff.id}/1700000000_entry.png`);
    const res = await staff.client.rpc('create_lot_submission_with_entries', {
      p_location_id: s.location,
      p_entries: [{ submission_type_id: s.type, car_count: 4, image_url: entryUrl }],
      p_image_url: lotUrl,
    });
    expect(res.error).toBeNull();
    expect(res.data.image_url).toBe(lotUrl);
    expect((await fetch(lotUrl)).status).toBe(200);
    expect(await links(a)).toEqual([
      `lot-images/${staff.id}/1700000000_entry.png`,
      `lot-images/${staff.id}/1700000000_lot.png`,
    ]);
  });

  it("admins set the branding logo by REST upsert with their own upload, or one in the auction's folder", async () => {
    logoUrl = await upload(owner, 'lot-images', `${owner.id}/logo.png`);
    const own = await owner.client.from('auction_branding').upsert({ auction_id: a, logo_url: logoUrl });
    expect(own.error).toBeNull();
    // Only super admins (and the service role) write the auction's folder; anyone who may brand may use it.
    const folderUrl = await upload(root, 'lot-images', `${a}/brand/logo.png`);
    const folder = await owner.client.from('auction_branding').upsert({ auction_id: a, logo_url: folderUrl });
    expect(folder.error).toBeNull();
    // An external image links nothing.
    const external = await owner.client
      .from('auction_branding')
      .upsert({ auction_id: a, logo_url: 'https://cdn.example.com/logo.png' });
    expect(external.error).toBeNull();
    expect(await links(a)).toEqual(
      expect.arrayContaining([`lot-images/${owner.id}/logo.png`, `lot-images/${a}/brand/logo.png`]),
    );
    expect((await links(a)).some((l) => l.includes('cdn.example.com'))).toBe(false);
  });

  it("image messages: one's own upload, and a URL the auction already links (a copy inside the auction)", async () => {
    const channel = await channelOf(owner, a);
    sharedUrl = await upload(staff, 'lot-images', `${staff.id}/shared.png`);
    const own = await staff.client
      .from('messages')
      .insert({ auction_id: a, channel_id: channel, content: sharedUrl, message_type: 'image' });
    expect(own.error).toBeNull();
    const copy = await staff.client
      .from('messages')
      .insert({ auction_id: a, channel_id: channel, content: logoUrl, message_type: 'image' });
    expect(copy.error).toBeNull();
    // The owner's upload they never put in the auction is still theirs alone.
    const unlinked = await upload(owner, 'lot-images', `${owner.id}/private.png`);
    const refused = await staff.client
      .from('messages')
      .insert({ auction_id: a, channel_id: channel, content: unlinked, message_type: 'image' });
    expectRefused(refused);
    // The same member links the same object in auction B too.
    const channelB = await channelOf(otherOwner, b);
    const inB = await staff.client
      .from('messages')
      .insert({ auction_id: b, channel_id: channelB, content: sharedUrl, message_type: 'image' });
    expect(inB.error).toBeNull();
    expect(await links(b)).toEqual([`lot-images/${staff.id}/shared.png`]);
  });

  it("a deleted auction's objects are served to their uploader only; a shared one still to everyone", async () => {
    const anon = t.client();
    expect((await anon.storage.from('lot-images').list(staff.id)).data!.map((o) => o.name)).toContain(
      '1700000000_lot.png',
    );
    expect((await fetch(storageUrl('public/', 'lot-images', `${a}/brand/logo.png`))).status).toBe(200);
    expect((await owner.client.from('auctions').delete().eq('id', a)).error).toBeNull();
    // Public downloads trust a row they looked up for a second (object-read-service.ts findPublic).
    await new Promise((r) => setTimeout(r, 1100));
    const lotName = `${staff.id}/1700000000_lot.png`;
    const missing = await fetch(storageUrl('public/', 'lot-images', `${staff.id}/no-such.png`));
    const hidden = [
      await fetch(storageUrl('public/', 'lot-images', lotName)),
      await fetch(storageUrl('public/', 'lot-images', `${a}/brand/logo.png`)),
      await fetch(storageUrl('authenticated/', 'lot-images', lotName), {
        headers: { authorization: `Bearer ${otherOwner.token}`, apikey: t.anonKey },
      }),
    ];
    const missingBody = await missing.text();
    expect(missing.status).toBeGreaterThanOrEqual(400);
    for (const res of hidden) {
      expect(res.status).toBe(missing.status);
      expect(await res.text()).toBe(missingBody);
    }
    const renderMissing = await fetch(`${t.url}/storage/v1/render/image/public/lot-images/${staff.id}/no-such.png`);
    const renderHidden = await fetch(`${t.url}/storage/v1/render/image/public/lot-images/${lotName}`);
    expect(renderHidden.status).toBe(renderMissing.status);
    // Listing, info and signing as someone else: as if missing.
    const listed = await anon.storage.from('lot-images').list(staff.id);
    expect(listed.data!.map((o) => o.name)).not.toContain('1700000000_lot.png');
    expect(listed.data!.map((o) => o.name)).toContain('shared.png');
    expect((await otherOwner.client.storage.from('lot-images').exists(lotName)).data).toBe(false);
    expect((await otherOwner.client.storage.from('lot-images').createSignedUrl(lotName, 60)).error).not.toBeNull();
    // The uploader: everything as before.
    expect((await staff.client.storage.from('lot-images').download(lotName)).data).not.toBeNull();
    expect((await staff.client.storage.from('lot-images').createSignedUrl(lotName, 60)).error).toBeNull();
    expect((await staff.client.storage.from('lot-images').list(staff.id)).data!.map((o) => o.name)).toContain(
      '1700000000_lot.png',
    );
    // Linked by live auction B as well: served to anyone.
    expect((await fetch(sharedUrl)).status).toBe(200);
    // The victim's objects were never the auction's: served as before.
    expect((await fetch(photoUrl)).status).toBe(200);
  });

  it("the purge removes the auction's objects and keeps the one auction B still links", async () => {
    const removed: string[] = [];
    const purged = await purgeDueAuctions({
      sql: t.db.sql,
      now: new Date(Date.now() + 31 * DAY),
      removeKeys: async (keys) => void removed.push(...keys),
    });
    expect(purged).toEqual([{ id: a, objects: 4 }]);
    for (const name of [
      `${staff.id}/1700000000_lot.png`,
      `${staff.id}/1700000000_entry.png`,
      `${owner.id}/logo.png`,
      `${a}/brand/logo.png`,
    ])
      expect(await objectVersion('lot-images', name)).toBeUndefined();
    expect(await objectVersion('lot-images', `${staff.id}/shared.png`)).toBeDefined();
    expect(await objectVersion('lot-images', `${owner.id}/private.png`)).toBeDefined();
    expect(await links(b)).toEqual([`lot-images/${staff.id}/shared.png`]);
  });
});

describe('a borrowed URL written before the upgrade (no link)', () => {
  it('export, delete, purge now and re-import leave the victim’s object byte for byte, and carry none of it', async () => {
    const name = `${victim.id}/contract.txt`;
    const version = (await objectVersion('private-docs', name))!;
    // What the attack left before this release: the row, written without the trigger (as the upgrade finds it).
    await t.db.sql.begin(async (tx) => {
      await tx.unsafe('set local session_replication_role = replica');
      await tx`insert into public.auction_branding (auction_id, logo_url) values (${x}, ${contractUrl})
        on conflict (auction_id) do update set logo_url = excluded.logo_url`;
      await tx`insert into public.lot_submissions (auction_id, location_id, user_id, image_url)
        select ${x}, id, ${attacker.id}, ${photoUrl} from public.locations where auction_id = ${x} limit 1`;
    });
    expect(await links(x)).toEqual([]);

    const archive = await exportToBuffer(x);
    expect(archive.objects).toEqual([]);
    const text = gunzipSync(archive.bytes).toString('latin1');
    expect(text).toContain(contractUrl); // the row travels, the victim's bytes do not
    expect(text).not.toContain(CONTRACT.toString('latin1').trim());

    expect((await attacker.client.from('auctions').delete().eq('id', x)).error).toBeNull();
    expect((await root.client.rpc('purge_deleted_auction_now', { p_auction_id: x })).error).toBeNull();
    await until(
      async () => (await t.db.sql`select 1 from public.auctions where id = ${x}`).length === 0,
      'the purge of x',
    );
    const [event] = await t.db.sql`select data from public.event_outbox
      where auction_id = ${x} and event_type = 'auction.purged'`;
    expect(event!.data.objects_removed).toBe(0);
    expect(await objectVersion('private-docs', name)).toBe(version);
    expect(bytesOnDisk('private-docs', version).equals(CONTRACT)).toBe(true);
    expect((await victim.client.storage.from('private-docs').download(name)).data).not.toBeNull();
    expect(await objectVersion('lot-images', `${victim.id}/photo.png`)).toBeDefined();

    // Brought back from the archive: the row names the object again, but links nothing.
    const file = join(t.dataDir, 'x.archive');
    writeFileSync(file, archive.bytes);
    await importAuction({ url: t.db.ownerUrl, backend, spoolDir: join(t.dataDir, 'storage', 'tmp'), file });
    expect(await links(x)).toEqual([]);
    expect((await exportToBuffer(x)).objects).toEqual([]);
    expect(await objectVersion('private-docs', name)).toBe(version);
    expect(bytesOnDisk('private-docs', version).equals(CONTRACT)).toBe(true);
  });
});
