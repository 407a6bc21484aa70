// Asks Postgres which identities may see which changes of one table: realtime.visible_changes evaluates each
// identity's policies on the changes, in one call. The access plan skips what needs no asking: identities whose
// class reads every row, and groups whose tenants none of the changes belong to.
import type postgres from 'postgres';
import type { TableInfo } from './change-capture.js';
import { type AccessGroups, relName } from './access-groups.js';
import type { TupleValues } from './pgoutput.js';
import type { Identity } from './subscriber-identity.js';
import { changesToCheck, tenantsOf } from './tenant-scope.js';

/** Identity `identity` (an index into the identities asked about) may see change `change` (an index too). */
type Visible = { identity: number; change: number };

type Log = (level: 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;

export class VisibilityCheck {
  /** When the last call that evaluated policies started (ms). */
  lastCall = 0;
  private stopped = false;

  constructor(
    private readonly sql: postgres.Sql,
    private readonly access: AccessGroups,
    private readonly log: Log,
  ) {}

  /** Calls failing from now on are the router stopping: not retried, not logged. */
  stop(): void {
    this.stopped = true;
  }

  async visible(
    table: TableInfo,
    changes: unknown[],
    images: readonly TupleValues[],
    identities: Identity[],
  ): Promise<Visible[]> {
    const plan = await this.access.plan(table, identities);
    const visible = plan.open.flatMap((identity) => changes.map((_c, change) => ({ identity, change })));
    // Each group is checked on the changes of its own tenants only; a group with none is not checked at all.
    const changeTenants = tenantsOf(plan.tenantColumn, images);
    const checked: { group: number[]; changes: number[] | undefined }[] = [];
    plan.groups.forEach((group, g) => {
      const only = changesToCheck(plan.tenants[g]!, changeTenants);
      if (only === undefined || only.length) checked.push({ group, changes: only });
    });
    if (!checked.length) return visible;
    const rows = await this.ask(
      table,
      changes,
      checked.map(({ group, changes: only }) => ({ identity: identities[group[0]!]!, changes: only })),
    );
    for (const r of rows)
      for (const identity of checked[r.identity]!.group) visible.push({ identity, change: r.change });
    return visible;
  }

  private async ask(
    table: TableInfo,
    changes: unknown[],
    checks: { identity: Identity; changes: number[] | undefined }[],
  ): Promise<Visible[]> {
    const rel = relName(table);
    const idents = JSON.stringify(
      checks.map(({ identity, changes: only }) => ({ role: identity.role, claims: identity.claims, changes: only })),
    );
    this.lastCall = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.sql<Visible[]>`
          select identity, change from realtime.visible_changes(${rel}::regclass,
            ${JSON.stringify(changes)}::text::jsonb, ${idents}::text::jsonb)`;
      } catch (error) {
        if (this.stopped) return [];
        if (attempt === 3) {
          this.log('error', 'realtime: authorizing changes failed; they are not delivered', {
            table: rel,
            changes: changes.length,
            error: (error as Error).message,
          });
          return [];
        }
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  }
}
