// Routes captured changes to postgres_changes subscribers: matches bindings in memory (table, event, filter),
// then asks Postgres which subscribers may see which changes, with one call per table for everything that
// arrived while the previous call ran (however many subscribers and changes), and delivers in commit order.
import type postgres from 'postgres';
import type { Change, TableInfo } from './change-capture.js';
import { changePayload, imageOf, probeOf } from './change-payload.js';
import { BindingIndex } from './binding-index.js';
import type { RowFilter } from './filters.js';
import { AccessGroups, relName } from './access-groups.js';
import { changesToCheck, tenantsOf } from './tenant-scope.js';
import { entry } from './map-entry.js';
import type { Identity } from './subscriber-identity.js';
import type { TupleValues } from './pgoutput.js';

const GRANTS_TTL_MS = 5_000;
// While changes keep coming, policy checks start at most this often: each call has a fixed cost in Postgres, and
// checking back to back would pay it for every change of a steady stream. Short, since a change waits for it, and
// with tenant scopes most of a check's cost is per change and tenant, which gathering does not share (5,000
// subscribers at 200 changes/s: 25 ms gave p50 25 ms; 10 ms gives 12 ms for 0.2 ms more Postgres CPU per change).
const CHECK_INTERVAL_MS = 10;

export type ChangeEvent = '*' | 'INSERT' | 'UPDATE' | 'DELETE';

export interface ChangeTarget {
  readonly identity: Identity;
  readonly joined: boolean;
  /** Sends one change; `data` is the JSON of the payload's `data` member. */
  deliverChange(ids: readonly number[], data: string): void;
}

export interface Binding {
  id: number;
  event: ChangeEvent;
  schema: string;
  /** A table name, or '*' for every subscribable table of the schema. */
  table: string;
  filter?: RowFilter;
  target: ChangeTarget;
}

interface Routed {
  change: Change;
  /** Per target, the ids of its bindings the change matched; shared by changes when no filter decided it. */
  targets: ReadonlyMap<ChangeTarget, readonly number[]>;
}

/** Per identity key, the targets of a match with that identity and their binding ids. */
type ByIdentity = Map<string, [ChangeTarget, readonly number[]][]>;

interface Grouping {
  byIdentity: ByIdentity;
  /** The distinct identities of the match. */
  identities: Identity[];
  /** Each target's identity when grouped, in the match's order. */
  as: Identity[];
  roles: string[];
}

interface Checked {
  batch: Routed[];
  /** Per batch index, the identity keys that may see the change. */
  visible: Map<number, Set<string>>;
  /** Per match of the batch, its targets by identity as they were checked. */
  byIdentity: Map<Routed['targets'], ByIdentity>;
}

interface ChangeRouterOptions {
  /** Pool logging in as the authenticator, which may assume the request roles. */
  sql: postgres.Sql;
  log: (level: 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
}

export class ChangeRouter {
  private readonly bindings = new Map<string, BindingIndex<Binding>>();
  /**
   * Per table and event, what a change matches when none of the bindings it could match has a filter (then every
   * such change matches the same): built once and shared until the bindings change, instead of once per change.
   */
  private readonly unfiltered = new Map<string, ReadonlyMap<ChangeTarget, readonly number[]>>();
  private queue: Routed[] = [];
  private pumping = false;
  /** When the last call that evaluated policies started (ms). */
  private lastCheck = 0;
  private stopped = false;
  /**
   * Per role and table, the columns that role may SELECT: a change never carries a column its reader lacks.
   * Read again after a few seconds, since grants can change at any time.
   */
  private readonly readable = new Map<string, { at: number; columns: Set<string> }>();
  private readonly readableLoads = new Map<string, Promise<void>>();

  private readonly access: AccessGroups;
  private readonly groupings = new WeakMap<Routed['targets'], Grouping>();

  constructor(private readonly options: ChangeRouterOptions) {
    this.access = new AccessGroups(options.sql);
  }

  /** Reads what identity classes depend on; before the first change. */
  start(): Promise<void> {
    return this.access.load();
  }

  add(binding: Binding): void {
    const key = `${binding.schema}.${binding.table}`;
    entry(this.bindings, key, () => new BindingIndex<Binding>()).add(binding);
    this.unfiltered.clear();
    if (binding.table === '*') return;
    // What the first change would otherwise wait for: the identity's class, and its role's readable columns.
    this.access.warm(binding.schema, binding.table, binding.target.identity);
    void this.loadReadable(binding, binding.target.identity.role).catch(() => {});
  }

  remove(binding: Binding): void {
    const key = `${binding.schema}.${binding.table}`;
    const index = this.bindings.get(key);
    index?.delete(binding);
    this.unfiltered.clear();
    if (index?.size === 0) this.bindings.delete(key);
  }

  /** Change capture lost changes: the schema may have changed too, so column grants are read again. */
  reset(): void {
    this.readable.clear();
    this.access.reset();
  }

  onTransaction(changes: readonly Change[]): void {
    this.access.noteChanges(changes);
    for (const change of changes) {
      const targets = this.match(change);
      if (targets.size) this.queue.push({ change, targets });
    }
    if (this.queue.length && !this.pumping && !this.stopped) void this.pump();
  }

  /** Stops routing: queued changes are dropped (their subscribers are being disconnected). */
  stop(): void {
    this.stopped = true;
    this.queue = [];
  }

  private match(change: Change): ReadonlyMap<ChangeTarget, readonly number[]> {
    const { schema, table } = change.table;
    const shareKey = `${schema}.${table}|${change.type}`;
    const shared = this.unfiltered.get(shareKey);
    if (shared) return shared;
    const targets = new Map<ChangeTarget, number[]>();
    let filtered = false;
    // A DELETE is matched against the old row: the row is gone, and its old image is what the filter meant.
    const row = change.type === 'DELETE' ? change.old : change.record;
    const found = (b: Binding) => {
      const ids = targets.get(b.target);
      if (ids) ids.push(b.id);
      else targets.set(b.target, [b.id]);
    };
    for (const key of [`${schema}.${table}`, `${schema}.*`, `*.*`]) {
      const index = this.bindings.get(key);
      if (!index) continue;
      filtered ||= index.filtersEvent(change.type);
      index.forEachMatch(change.type, row ?? undefined, found);
    }
    if (!filtered) this.unfiltered.set(shareKey, targets);
    return targets;
  }

  /**
   * Checks batches one after another and delivers them in order. The next batch's check is sent before the current
   * one is delivered, so Postgres judges it while this process writes to the sockets, and its changes do not wait
   * for that delivery to start their check.
   */
  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      let checking = this.checkNext();
      for (;;) {
        const { batch, visible, byIdentity } = await checking;
        const more = this.queue.length > 0 && !this.stopped;
        if (more) checking = this.checkNext();
        batch.forEach((routed, index) => {
          this.deliver(routed, visible.get(index), byIdentity.get(routed.targets)!);
        });
        if (!more) break;
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Takes what is queued, once the interval since the last call that evaluated policies has passed, and checks it. */
  private async checkNext(): Promise<Checked> {
    const wait = this.lastCheck + CHECK_INTERVAL_MS - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const batch = this.queue;
    this.queue = [];
    const byIdentity = new Map<Routed['targets'], ByIdentity>();
    const visible = await this.authorize(batch, byIdentity);
    return { batch, visible, byIdentity };
  }

  /** For each batch entry, the identity keys that may see it; fills `byIdentity` for each match of the batch. */
  private async authorize(
    batch: readonly Routed[],
    byIdentity: Map<Routed['targets'], ByIdentity>,
  ): Promise<Map<number, Set<string>>> {
    const byTable = new Map<TableInfo, number[]>();
    batch.forEach((routed, index) => {
      entry(byTable, routed.change.table, () => []).push(index);
    });
    const visible = new Map<number, Set<string>>();
    await Promise.all(
      [...byTable].map(async ([table, indexes]) => {
        const matches = [...new Set(indexes.map((i) => batch[i]!.targets))].map((targets) => {
          const grouping = this.groupingOf(targets);
          byIdentity.set(targets, grouping.byIdentity);
          return grouping;
        });
        // One match (no filter told the changes apart): its identities, the same array as long as it holds, so the
        // access plan made for them is used again.
        const idents =
          matches.length === 1
            ? matches[0]!.identities
            : [...new Map(matches.flatMap((m) => m.identities).map((i) => [i.key, i])).values()];
        const changes = indexes.map((i) => probeOf(batch[i]!.change));
        const images = indexes.map((i) => imageOf(batch[i]!.change));
        const [rows] = await Promise.all([
          this.check(table, changes, images, idents),
          ...[...new Set(matches.flatMap((m) => m.roles))].map((role) => this.loadReadable(table, role)),
        ]);
        for (const { identity, change } of rows) {
          const index = indexes[change]!;
          entry(visible, index, () => new Set<string>()).add(idents[identity]!.key);
        }
      }),
    );
    return visible;
  }

  /**
   * A match's targets grouped by identity, kept while the match is (shared matches last until the bindings change)
   * and every target still has the identity it was grouped under (a channel's identity changes with its token).
   */
  private groupingOf(targets: Routed['targets']): Grouping {
    const known = this.groupings.get(targets);
    if (known) {
      let i = 0;
      let same = true;
      for (const target of targets.keys()) {
        if (target.identity === known.as[i++]) continue;
        same = false;
        break;
      }
      if (same) return known;
    }
    const byIdentity: ByIdentity = new Map();
    const identities = new Map<string, Identity>();
    const as: Identity[] = [];
    for (const [target, ids] of targets) {
      as.push(target.identity);
      identities.set(target.identity.key, target.identity);
      entry(byIdentity, target.identity.key, () => []).push([target, ids]);
    }
    const grouping = {
      byIdentity,
      identities: [...identities.values()],
      as,
      roles: [...new Set(as.map((i) => i.role))],
    };
    this.groupings.set(targets, grouping);
    return grouping;
  }

  private async check(
    table: TableInfo,
    changes: unknown[],
    images: readonly TupleValues[],
    identities: Identity[],
  ): Promise<{ identity: number; change: number }[]> {
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
    const rows = await this.query(
      table,
      changes,
      checked.map(({ group, changes: only }) => ({ identity: identities[group[0]!]!, changes: only })),
    );
    for (const r of rows)
      for (const identity of checked[r.identity]!.group) visible.push({ identity, change: r.change });
    return visible;
  }

  private async query(
    table: TableInfo,
    changes: unknown[],
    checks: { identity: Identity; changes: number[] | undefined }[],
  ): Promise<{ identity: number; change: number }[]> {
    const rel = relName(table);
    const idents = JSON.stringify(
      checks.map(({ identity, changes: only }) => ({ role: identity.role, claims: identity.claims, changes: only })),
    );
    this.lastCheck = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.options.sql<{ identity: number; change: number }[]>`
          select identity, change from realtime.visible_changes(${rel}::regclass,
            ${JSON.stringify(changes)}::text::jsonb, ${idents}::text::jsonb)`;
      } catch (error) {
        if (this.stopped) return [];
        if (attempt === 3) {
          this.options.log('error', 'realtime: authorizing changes failed; they are not delivered', {
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

  /** Reads (again, once its answer is old) which columns `role` may SELECT; one query per role and table at a time. */
  private loadReadable(table: Pick<TableInfo, 'schema' | 'table'>, role: string): Promise<void> {
    const key = `${role}|${table.schema}.${table.table}`;
    const known = this.readable.get(key);
    if (known && Date.now() - known.at < GRANTS_TTL_MS) return Promise.resolve();
    let loading = this.readableLoads.get(key);
    if (!loading) {
      loading = this.options.sql<{ attname: string }[]>`
        select attname from pg_attribute
         where attrelid = ${relName(table)}::regclass and attnum > 0 and not attisdropped
           and has_column_privilege(${role}, attrelid, attnum, 'SELECT')`
        .then((rows) => {
          this.readable.set(key, { at: Date.now(), columns: new Set(rows.map((r) => r.attname)) });
        })
        .finally(() => this.readableLoads.delete(key));
      this.readableLoads.set(key, loading);
    }
    return loading;
  }

  /** To the targets of the identities allowed, each still joined under the identity it was checked as. */
  private deliver(routed: Routed, allowed: Set<string> | undefined, byIdentity: ByIdentity): void {
    if (!allowed) return;
    const byRole = new Map<string, string>();
    for (const key of allowed) {
      for (const [target, ids] of byIdentity.get(key) ?? []) {
        if (!target.joined || target.identity.key !== key) continue;
        let data = byRole.get(target.identity.role);
        if (data === undefined) {
          data = this.payload(routed.change, target.identity.role);
          byRole.set(target.identity.role, data);
        }
        target.deliverChange(ids, data);
      }
    }
  }

  private payload(change: Change, role: string): string {
    const { table } = change;
    const readable = this.readable.get(`${role}|${table.schema}.${table.table}`);
    return changePayload(change, (column) => readable?.columns.has(column) ?? false);
  }
}
