// What each job of the plan does over HTTP, as the mobile app and the dashboard do it: a lot submission (photo
// upload, then the RPC with three entries), an inspection with its defects, a rock report through its life, a chat
// message, an admin's dashboard refresh, a CSV import. Every acknowledged write is reported with a client-chosen
// id or marker (message and report ids, inspection VINs, submission notes) so the audit can count it exactly once.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Ack, Refusal } from './messages.js';
import type { Job } from './plan.js';
import { type Answer, type Request, ok } from './http-client.js';
import { profile } from './profile.js';
import type { World } from './world.js';

export interface ActionContext {
  request: Request;
  ack: (a: Ack) => void;
  refuse: (r: Refusal) => void;
  world: World;
  categoryIds: string[];
  photoBytes: number;
  csvBytes: number;
  channelOf: (user: number, channels: number) => number;
}

const VIN_CHARS = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';
const vin = () => Array.from(randomBytes(17), (b) => VIN_CHARS[b % VIN_CHARS.length]).join('');
const rows = { prefer: 'return=representation' };

/** Reports a write the server did not acknowledge, for the audit's check that it is not stored. */
function refused(c: ActionContext, type: Refusal['type'], token: string, res: Answer): void {
  const code = (res.body as { code?: unknown } | undefined)?.code;
  c.refuse({ type, token, status: res.status, code: typeof code === 'string' ? code : null });
}

let photo: Buffer | undefined;
/** A 2 MB JPEG-looking body; each upload stamps its own 16 bytes into it, so every object differs. */
function photoFor(bytes: number, stamp: Buffer): Buffer {
  photo ??= (() => {
    const b = randomBytes(bytes);
    b.set([0xff, 0xd8, 0xff, 0xe0]);
    return b;
  })();
  const copy = Buffer.from(photo);
  stamp.copy(copy, 4);
  return copy;
}

let csv: Buffer | undefined;
let csvRows = 0;
/** The hourly import's CSV: about `bytes` of auction sales rows. */
function csvFor(bytes: number): { body: Buffer; rows: number } {
  if (!csv) {
    const lines = ['sold_at,lot,vin,mileage,price,run_and_drive'];
    let size = lines[0]!.length + 1;
    for (let i = 0; size < bytes; i++) {
      const line = `2026-11-${String(1 + (i % 28)).padStart(2, '0')}T${String(6 + (i % 12)).padStart(2, '0')}:00:00Z,Lot ${1 + (i % 10)},${vin()},${(i * 7919) % 250000},${((i * 104729) % 5000000) / 100},${i % 3 === 0}`;
      lines.push(line);
      size += line.length + 1;
    }
    csvRows = lines.length - 1;
    csv = Buffer.from(`${lines.join('\n')}\n`);
  }
  return { body: csv, rows: csvRows };
}

async function submission(c: ActionContext, job: Extract<Job, { kind: 'submission' }>) {
  const auction = c.world.auctions[job.auction]!;
  const user = auction.staff[job.user]!;
  const location = auction.locations[job.location]!;
  const stamp = randomBytes(16);
  const body = photoFor(c.photoBytes, stamp);
  const path = `${user.id}/${Math.floor(Date.now() / 1000)}_${stamp.toString('hex')}.jpg`;
  const upload = await c.request('upload.photo', 'POST', `/storage/v1/object/lot-images/${path}`, {
    token: user.token,
    body,
    headers: { 'content-type': 'image/jpeg' },
  });
  if (!ok(upload)) return;
  c.ack({ type: 'object', path, sha256: createHash('sha256').update(body).digest('hex'), bytes: body.length });
  const imageUrl = `/storage/v1/object/public/lot-images/${path}`;
  const token = `day-sub-${randomUUID()}`;
  const entries = location.typeIds.slice(0, 3).map((id, i) => ({
    submission_type_id: id,
    car_count: 5 + ((stamp[i] ?? 0) % 60),
    ...(i === 0 ? { image_url: imageUrl } : {}),
  }));
  const res = await c.request(
    'rpc.create_lot_submission_with_entries',
    'POST',
    '/rest/v1/rpc/create_lot_submission_with_entries',
    {
      token: user.token,
      json: { p_location_id: location.id, p_entries: entries, p_image_url: imageUrl, p_notes: token },
    },
  );
  if (ok(res)) {
    const id = (res.body as { id: string }).id;
    c.ack({ type: 'submission', id, auction: auction.id, token, entries: entries.length });
  } else refused(c, 'submission', token, res);
}

async function inspection(c: ActionContext, job: Extract<Job, { kind: 'inspection' }>) {
  const auction = c.world.auctions[job.auction]!;
  const user = auction.staff[job.user]!;
  const id = randomUUID();
  const token = vin();
  const res = await c.request('write.quality_inspections', 'POST', '/rest/v1/quality_inspections', {
    token: user.token,
    json: {
      id,
      auction_id: auction.id,
      location_id: auction.locations[job.location]!.id,
      vin_number: token,
      barcode: `BC${token.slice(-8)}`,
    },
  });
  if (!ok(res)) return refused(c, 'inspection', token, res);
  c.ack({ type: 'inspection', id, auction: auction.id, token });
  if (job.defects === 0) return;
  const defects = Array.from({ length: job.defects }, (_, i) => ({
    inspection_id: id,
    category_id: c.categoryIds[(i * 3 + token.charCodeAt(0)) % c.categoryIds.length],
    notes: `defect ${i + 1}`,
  }));
  const added = await c.request('write.quality_defects', 'POST', '/rest/v1/quality_defects?select=id', {
    token: user.token,
    json: defects,
    headers: rows,
  });
  if (ok(added))
    for (const d of added.body as Array<{ id: string }>) c.ack({ type: 'defect', id: d.id, auction: auction.id });
}

async function report(c: ActionContext, job: Extract<Job, { kind: 'report' }>) {
  const auction = c.world.auctions[job.auction]!;
  const user = auction.admins[job.user]!;
  const id = randomUUID();
  const token = `day-rock-${id}`;
  const created = await c.request('write.problem_reports', 'POST', '/rest/v1/problem_reports', {
    token: user.token,
    json: {
      id,
      auction_id: auction.id,
      issue_name: token,
      area: 'Yard',
      location_id: auction.locations[job.location]!.id,
      assigned_to: user.id,
    },
  });
  if (!ok(created)) return refused(c, 'report', token, created);
  c.ack({ type: 'report', id, auction: auction.id, token });
  const post = async (kind: string, table: string, json: unknown, type: 'fact' | 'cause' | 'action') => {
    const res = await c.request(kind, 'POST', `/rest/v1/${table}?select=id`, {
      token: user.token,
      json,
      headers: rows,
    });
    const ids = ok(res) ? (res.body as Array<{ id: string }>).map((r) => r.id) : [];
    for (const rowId of ids) c.ack({ type, id: rowId, auction: auction.id } as Ack);
    return ids;
  };
  await post(
    'write.problem_facts',
    'problem_facts',
    {
      problem_id: id,
      who: 'Yard crew',
      what: 'Rock chip',
      where_field: 'Lane 3',
      when_field: 'Morning',
      how_many: '4',
      how_much: '$400',
    },
    'fact',
  );
  await post(
    'write.potential_causes',
    'potential_causes',
    Array.from({ length: profile.causesPerReport }, (_, i) => ({
      problem_id: id,
      cause_text: `cause ${i + 1}`,
      order_number: i + 1,
    })),
    'cause',
  );
  const actions = await post(
    'write.problem_actions',
    'problem_actions',
    Array.from({ length: profile.actionsPerReport }, (_, i) => ({
      problem_id: id,
      issue: `issue ${i + 1}`,
      countermeasure: 'Sweep the lane',
      responsible_person: 'Yard lead',
      completion_date: '2026-12-31',
      status: 'pending',
    })),
    'action',
  );
  const status = async (value: string) => {
    const t = Date.now();
    const res = await c.request('write.problem_status', 'PATCH', `/rest/v1/problem_reports?id=eq.${id}`, {
      token: user.token,
      json: { status: value },
    });
    if (ok(res)) c.ack({ type: 'report-status', id, status: value, at: t });
  };
  await status('in_progress');
  if (actions.length > 0) {
    const t = Date.now();
    const res = await c.request(
      'write.problem_action_status',
      'PATCH',
      `/rest/v1/problem_actions?id=in.(${actions.join(',')})`,
      { token: user.token, json: { status: 'complete' } },
    );
    if (ok(res)) for (const a of actions) c.ack({ type: 'action-status', id: a, status: 'complete', at: t });
  }
  await status('closed');
}

async function message(c: ActionContext, job: Extract<Job, { kind: 'message' }>) {
  const auction = c.world.auctions[job.auction]!;
  const user = auction.staff[job.user]!;
  const id = randomUUID();
  const token = `day-msg-${id}`;
  const channel = auction.channels[c.channelOf(job.user, auction.channels.length)]!;
  const res = await c.request('write.messages', 'POST', '/rest/v1/messages', {
    token: user.token,
    json: { id, auction_id: auction.id, channel_id: channel, content: token },
  });
  if (ok(res)) c.ack({ type: 'message', id, auction: auction.id, token, channel });
  else refused(c, 'message', token, res);
}

async function refresh(c: ActionContext, job: Extract<Job, { kind: 'refresh' }>) {
  const auction = c.world.auctions[job.auction]!;
  const token = auction.admins[job.user]!.token;
  const now = new Date();
  const ago = (hours: number) => new Date(now.getTime() - hours * 3_600_000).toISOString();
  const a = `auction_id=eq.${auction.id}`;
  const get = (kind: string, path: string) => c.request(kind, 'GET', `/rest/v1/${path}`, { token });
  const rpc = (name: string, json: unknown) =>
    c.request(`rpc.${name}`, 'POST', `/rest/v1/rpc/${name}`, { token, json });
  await Promise.all([
    get('read.recent_submissions', `recent_submissions?${a}&order=submitted_at.desc&limit=25`),
    get('read.recent_quality_inspections', `recent_quality_inspections?${a}&order=submitted_at.desc&limit=25`),
    get('read.active_problem_reports', `active_problem_reports?${a}&status=neq.closed&order=submitted_at.desc`),
    get(
      'read.messages_with_reply_count',
      `messages_with_reply_count?channel_id=eq.${auction.channels[0]}&parent_message_id=is.null&order=created_at.desc&limit=50`,
    ),
    rpc('get_all_locations_stats', { p_start_date: ago(24), p_end_date: now.toISOString() }),
    rpc('get_defect_trends', { p_start_date: ago(24 * 7), p_end_date: now.toISOString(), p_location_id: null }),
    rpc('get_location_stats', {
      p_location_id: auction.locations[job.user % auction.locations.length]!.id,
      p_start_date: ago(12),
      p_end_date: now.toISOString(),
    }),
    rpc('get_pending_submissions', {}),
  ]);
}

async function importCsv(c: ActionContext, job: Extract<Job, { kind: 'import' }>) {
  const auction = c.world.auctions[job.auction]!;
  const token = auction.admins[job.user]!.token;
  const { body, rows: count } = csvFor(c.csvBytes);
  const form = new FormData();
  form.set('options', JSON.stringify({ auction_id: auction.id, name: `day-import-${randomUUID()}` }));
  form.set('file', new Blob([body], { type: 'text/csv' }), 'sales.csv');
  const started = performance.now();
  const res = await c.request('import.csv', 'POST', '/functions/v1/import-csv', {
    token,
    body: form,
    timeoutMs: 600_000,
  });
  if (!ok(res)) return;
  const complete = /event: complete\ndata: (.*)\n/.exec(res.text)?.[1];
  if (!complete) return;
  const done = JSON.parse(complete) as { dataset_id: string; row_count: number };
  if (done.row_count === count)
    c.ack({
      type: 'dataset',
      id: done.dataset_id,
      rows: done.row_count,
      seconds: (performance.now() - started) / 1000,
    });
}

/** Builds what the jobs send (the photo, the CSV) before the clock starts: built during the run, the 10 MB CSV
 * blocked its generator's event loop for a second or more, and every request in flight there looked that slow. */
export function prepare(c: Pick<ActionContext, 'photoBytes' | 'csvBytes'>, jobs: Job[]): void {
  photoFor(c.photoBytes, Buffer.alloc(16));
  if (jobs.some((j) => j.kind === 'import')) csvFor(c.csvBytes);
}

export function runJob(c: ActionContext, job: Job): Promise<void> {
  switch (job.kind) {
    case 'submission':
      return submission(c, job);
    case 'inspection':
      return inspection(c, job);
    case 'report':
      return report(c, job);
    case 'message':
      return message(c, job);
    case 'refresh':
      return refresh(c, job);
    case 'import':
      return importCsv(c, job);
  }
}
