// The audit after a run: every write the server acknowledged is in the database exactly once (by its id and by
// its client-chosen marker) with its last acknowledged status; every acknowledged object reads back byte for byte
// (sha256); every event of an acknowledged write has exactly one delivery per subscribed endpoint, which reached its
// receiver (a 2xx answered), or is still queued, or failed after its attempts: none lost. Repeats reach receivers
// only under the same webhook_id (a second delivery of one event to one endpoint is a problem). No write answered
// with an error is stored, and none is refused as a duplicate (refused-writes.ts).
import { createHash } from 'node:crypto';
import type { Ack, ArrivalRecord, Refusal } from './messages.js';
import { refusedWrites } from './refused-writes.js';
import { pool, type OwnerSql, type World } from './world.js';

export interface AuditCheck {
  name: string;
  checked: number;
  problems: string[];
}

export interface Audit {
  checks: AuditCheck[];
  clean: boolean;
  /** Deliveries receivers acknowledged more than once, under the same webhook_id (allowed: at least once). */
  repeats: number;
}

type Of<T extends Ack['type']> = Extract<Ack, { type: T }>;
const only = <T extends Ack['type']>(acks: Ack[], type: T) => acks.filter((a) => a.type === type) as Of<T>[];

/** Rows by id and by marker: each acknowledged id present with its marker, and no marker twice. */
async function exactlyOnce(
  sql: OwnerSql,
  name: string,
  table: string,
  marker: string,
  acks: Array<{ id: string; token: string }>,
): Promise<AuditCheck> {
  const problems: string[] = [];
  const ids = acks.map((a) => a.id);
  const tokens = acks.map((a) => a.token);
  const rows = await sql<Array<{ id: string; marker: string }>>`
    select id::text, ${sql(marker)}::text as marker from ${sql(table)} where id = any(${ids}::uuid[])`;
  const found = new Map(rows.map((r) => [r.id, r.marker]));
  for (const a of acks) {
    if (!found.has(a.id)) problems.push(`${name} ${a.id} was acknowledged but is not in ${table}`);
    else if (found.get(a.id) !== a.token)
      problems.push(`${name} ${a.id} has ${marker} ${found.get(a.id)}, not ${a.token}`);
  }
  const twice = await sql<Array<{ marker: string; n: number }>>`
    select ${sql(marker)}::text as marker, count(*)::int as n from ${sql(table)}
    where ${sql(marker)} = any(${tokens}::text[]) group by 1 having count(*) > 1`;
  for (const t of twice) problems.push(`${name} with ${marker} ${t.marker} is in ${table} ${t.n} times`);
  return { name: `${name}s exactly once`, checked: acks.length, problems };
}

async function present(sql: OwnerSql, name: string, table: string, ids: string[]): Promise<AuditCheck> {
  const rows = await sql<Array<{ id: string }>>`select id::text from ${sql(table)} where id = any(${ids}::uuid[])`;
  const found = new Set(rows.map((r) => r.id));
  return {
    name: `${name}s present`,
    checked: ids.length,
    problems: ids.filter((id) => !found.has(id)).map((id) => `${name} ${id} was acknowledged but is not in ${table}`),
  };
}

/** The last acknowledged status of each row is the one stored. */
async function lastStatus(
  sql: OwnerSql,
  name: string,
  table: string,
  acks: Array<{ id: string; status: string; at: number }>,
) {
  const last = new Map<string, { status: string; at: number }>();
  for (const a of acks) if ((last.get(a.id)?.at ?? -1) <= a.at) last.set(a.id, a);
  const rows = await sql<Array<{ id: string; status: string }>>`
    select id::text, status from ${sql(table)} where id = any(${[...last.keys()]}::uuid[])`;
  const stored = new Map(rows.map((r) => [r.id, r.status]));
  const problems = [...last].flatMap(([id, a]) =>
    stored.get(id) === a.status
      ? []
      : [`${name} ${id}: acknowledged ${a.status}, stored ${stored.get(id) ?? 'nothing'}`],
  );
  return { name: `${name} statuses kept`, checked: last.size, problems };
}

async function objects(url: string, acks: Of<'object'>[]): Promise<AuditCheck> {
  const problems: string[] = [];
  await pool(acks, 6, async (a) => {
    try {
      const res = await fetch(`${url}/storage/v1/object/public/lot-images/${a.path}`, {
        signal: AbortSignal.timeout(30_000),
      });
      const body = Buffer.from(await res.arrayBuffer());
      const sha = createHash('sha256').update(body).digest('hex');
      if (res.status !== 200) problems.push(`object ${a.path}: GET answered ${res.status}`);
      else if (sha !== a.sha256)
        problems.push(`object ${a.path}: ${body.length} bytes, sha256 differs from the upload's`);
    } catch (error) {
      problems.push(`object ${a.path}: ${error}`);
    }
  });
  return { name: 'objects byte for byte', checked: acks.length, problems };
}

async function datasets(sql: OwnerSql, acks: Of<'dataset'>[]): Promise<AuditCheck> {
  const problems: string[] = [];
  for (const a of acks) {
    const [d] = await sql<Array<{ row_count: number; status: string; table_name: string }>>`
      select row_count, status, table_name from public.datasets where id = ${a.id}`;
    if (!d) {
      problems.push(`dataset ${a.id} was acknowledged but is not in public.datasets`);
      continue;
    }
    const [{ n }] = await sql<
      Array<{ n: number }>
    >`select count(*)::int as n from ${sql(`reporting_data.${d.table_name}`)}`;
    if (d.status !== 'ready' || d.row_count !== a.rows || n !== a.rows)
      problems.push(`dataset ${a.id}: ${d.status}, row_count ${d.row_count}, ${n} rows stored, ${a.rows} imported`);
  }
  return { name: 'imports complete', checked: acks.length, problems };
}

const EVENT_OF = {
  message: 'message.created',
  inspection: 'inspection.created',
  submission: 'submission.created',
} as const;

async function events(sql: OwnerSql, world: World, acks: Ack[], arrivals: ArrivalRecord[], attempts: number) {
  const problems: string[] = [];
  const deliveries = await sql<
    Array<{
      id: string;
      endpoint_id: string;
      status: string;
      event_type: string;
      subject: string;
      attempt_count: number;
    }>
  >`select id::text, endpoint_id::text, status, event_type, payload->'data'->>'id' as subject, attempt_count
    from public.webhook_deliveries where not is_test and event_type = any(${Object.values(EVENT_OF)}::text[])`;
  const bySubject = new Map<string, typeof deliveries>();
  for (const d of deliveries) {
    const key = `${d.event_type} ${d.subject}`;
    const list = bySubject.get(key);
    if (list) list.push(d);
    else bySubject.set(key, [d]);
  }
  const answered = new Set(arrivals.filter((a) => a.answered >= 200 && a.answered < 300).map((a) => a.webhookId));
  const arrivalsById = new Map<string, number>();
  const acknowledgedById = new Map<string, number>();
  for (const a of arrivals) {
    arrivalsById.set(a.webhookId, (arrivalsById.get(a.webhookId) ?? 0) + 1);
    if (a.answered >= 200 && a.answered < 300)
      acknowledgedById.set(a.webhookId, (acknowledgedById.get(a.webhookId) ?? 0) + 1);
  }
  const endpointsOf = new Map(world.auctions.map((a) => [a.id, a.endpoints.map((e) => e.id)]));
  const tally = { reached: 0, queued: 0, failed: 0 };
  let checked = 0;
  for (const a of acks) {
    if (a.type !== 'message' && a.type !== 'inspection' && a.type !== 'submission') continue;
    const event = EVENT_OF[a.type];
    const found = bySubject.get(`${event} ${a.id}`) ?? [];
    for (const endpoint of endpointsOf.get(a.auction) ?? []) {
      checked++;
      const mine = found.filter((d) => d.endpoint_id === endpoint);
      if (mine.length === 0) {
        problems.push(`${event} of ${a.id}: no delivery to endpoint ${endpoint} (event lost)`);
        continue;
      }
      if (mine.length > 1) problems.push(`${event} of ${a.id}: ${mine.length} deliveries to endpoint ${endpoint}`);
      const d = mine[0]!;
      if (answered.has(d.id)) tally.reached++;
      else if (d.status === 'queued') tally.queued++;
      else if (d.status === 'failed' && d.attempt_count >= attempts) tally.failed++;
      else
        problems.push(
          `${event} of ${a.id}: delivery ${d.id} is ${d.status} after ${d.attempt_count} attempts, and no receiver acknowledged it`,
        );
    }
  }
  const known = new Set(deliveries.map((d) => d.id));
  const strays = [...arrivalsById.keys()].filter((id) => !known.has(id));
  for (const id of strays.slice(0, 20)) problems.push(`a receiver got webhook_id ${id}, which no delivery has`);
  // A repeat: a delivery a receiver acknowledged more than once (retries after a failed answer are not repeats).
  const repeats = [...acknowledgedById.values()].filter((n) => n > 1).length;
  return {
    check: {
      name: `events delivered, queued or failed (${tally.reached} reached, ${tally.queued} queued, ${tally.failed} failed)`,
      checked,
      problems,
    },
    repeats,
  };
}

export async function audit(input: {
  sql: OwnerSql;
  url: string;
  world: World;
  acks: Ack[];
  /** Writes answered with anything but 2xx: none may be stored (see refused-writes.ts). */
  refusals: Refusal[];
  arrivals: ArrivalRecord[];
  /** Attempts after which a delivery is failed (WEBHOOK_RETRY_SCHEDULE's length). */
  attempts: number;
}): Promise<Audit> {
  const { sql, acks } = input;
  const checks: AuditCheck[] = [
    await exactlyOnce(sql, 'message', 'public.messages', 'content', only(acks, 'message')),
    await exactlyOnce(sql, 'inspection', 'public.quality_inspections', 'vin_number', only(acks, 'inspection')),
    await exactlyOnce(sql, 'submission', 'public.lot_submissions', 'notes', only(acks, 'submission')),
    await exactlyOnce(sql, 'rock report', 'public.problem_reports', 'issue_name', only(acks, 'report')),
    await present(
      sql,
      'defect',
      'public.quality_defects',
      only(acks, 'defect').map((a) => a.id),
    ),
    await present(
      sql,
      'fact',
      'public.problem_facts',
      only(acks, 'fact').map((a) => a.id),
    ),
    await present(
      sql,
      'cause',
      'public.potential_causes',
      only(acks, 'cause').map((a) => a.id),
    ),
    await present(
      sql,
      'action',
      'public.problem_actions',
      only(acks, 'action').map((a) => a.id),
    ),
    await lastStatus(sql, 'rock report', 'public.problem_reports', only(acks, 'report-status')),
    await lastStatus(sql, 'action', 'public.problem_actions', only(acks, 'action-status')),
    await objects(input.url, only(acks, 'object')),
    await datasets(sql, only(acks, 'dataset')),
    ...(await refusedWrites(sql, input.refusals)),
  ];
  const entries = only(acks, 'submission');
  const counted = await sql<Array<{ id: string; n: number }>>`
    select submission_id::text as id, count(*)::int as n from public.lot_submission_entries
    where submission_id = any(${entries.map((e) => e.id)}::uuid[]) group by 1`;
  const n = new Map(counted.map((c) => [c.id, c.n]));
  checks.push({
    name: 'submission entries',
    checked: entries.length,
    problems: entries.flatMap((e) =>
      n.get(e.id) === e.entries ? [] : [`submission ${e.id}: ${n.get(e.id) ?? 0} entries, ${e.entries} sent`],
    ),
  });
  const ev = await events(sql, input.world, acks, input.arrivals, input.attempts);
  checks.push(ev.check);
  return { checks, clean: checks.every((c) => c.problems.length === 0), repeats: ev.repeats };
}
