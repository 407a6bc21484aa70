// The audit's checks of the writes the server refused: a write answered with an error must not be in the database,
// and none may be refused as a duplicate.
// Issue 57's writes answered 409 `23505` were looked for among the acknowledged writes only, where they could not
// be. Left out: writes with no answer (status 0: the client cannot know) and 503 `08007`, the server's own "may
// or may not have committed" (both may be there). Each refused write is found by its client-chosen marker.
import type { Refusal } from './messages.js';
import type { OwnerSql } from './world.js';

/** Where each kind of write lands, and the column holding its marker. */
const TABLES: Record<Refusal['type'], { table: string; marker: string }> = {
  message: { table: 'public.messages', marker: 'content' },
  inspection: { table: 'public.quality_inspections', marker: 'vin_number' },
  submission: { table: 'public.lot_submissions', marker: 'notes' },
  report: { table: 'public.problem_reports', marker: 'issue_name' },
};

/** Whether the answer told the client that the write was not made. */
export function answeredWithError(r: Pick<Refusal, 'status' | 'code'>): boolean {
  return r.status >= 400 && r.code !== '08007';
}

/** The problems: each refused write whose marker is stored (`stored` holds the markers found, by type). */
export function refusedButStored(refusals: readonly Refusal[], stored: ReadonlyMap<string, ReadonlySet<string>>) {
  return refusals
    .filter((r) => answeredWithError(r) && stored.get(r.type)?.has(r.token))
    .map((r) => `${r.type} ${r.token} was answered ${r.status} ${r.code ?? ''} but is in ${TABLES[r.type].table}`);
}

/**
 * The problems: each write refused as a duplicate (409 `23505`). Every write the generators send carries a key made
 * for it (an id, a VIN, a marker) and nothing else unique, so a duplicate is the server's own (issue 57: the
 * fan-out gave an event's two deliveries one id, and the write was rolled back); the row is absent, so the check
 * above cannot see it.
 */
export function refusedAsDuplicates(refusals: readonly Refusal[]): string[] {
  return refusals
    .filter((r) => r.status === 409 && r.code === '23505')
    .map((r) => `${r.type} ${r.token} was answered 409 23505 though its key was new`);
}

/** The checks, in the shape of the audit's others (audit.ts's AuditCheck). */
export async function refusedWrites(
  sql: OwnerSql,
  refusals: readonly Refusal[],
): Promise<Array<{ name: string; checked: number; problems: string[] }>> {
  const counted = refusals.filter(answeredWithError);
  const stored = new Map<string, Set<string>>();
  for (const [type, { table, marker }] of Object.entries(TABLES)) {
    const tokens = counted.filter((r) => r.type === type).map((r) => r.token);
    if (tokens.length === 0) continue;
    const rows = await sql<Array<{ marker: string }>>`
      select ${sql(marker)}::text as marker from ${sql(table)} where ${sql(marker)} = any(${tokens}::text[])`;
    stored.set(type, new Set(rows.map((r) => r.marker)));
  }
  return [
    {
      name: 'writes answered with an error whose row exists',
      checked: counted.length,
      problems: refusedButStored(counted, stored),
    },
    { name: 'new writes refused as duplicates', checked: counted.length, problems: refusedAsDuplicates(counted) },
  ];
}
