// Routes captured changes to postgres_changes subscribers: matches bindings in memory (table, event, filter),
// then asks Postgres which subscribers may see which changes, with one call per table for everything that
// arrived while the previous call ran (however many subscribers and changes), and delivers in commit order.
import type postgres from 'postgres';
import type { Change, Column, TableInfo } from './change-capture.js';
import { BindingIndex } from './binding-index.js';
import type { RowFilter } from './filters.js';
import { AccessGroups, relName } from './access-groups.js';
import { changesToCheck, tenantsOf } from './tenant-scope.js';
import { entry } from './map-entry.js';
import type { Identity } from './subscriber-identity.js';
import type { TupleValues } from './pgoutput.js';

const GRANTS_TTL_MS = 5_000;
// While changes keep coming, policy checks start at most this often. A check costs Postgres about the same for one
// change as for dozens (the policies' helper functions run once per identity class and call), so checking back to
// back spends a core on checks under a steady stream; waiting this long between them gathers more per check.
const CHECK_INTERVAL_MS = 25;

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

  private readonly access: AccessGroups;

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
    if (binding.table !== '*') this.access.warm(binding.schema, binding.table, binding.target.identity);
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
        const identities = new Map<string, Identity>();
        for (const i of indexes) {
          const { targets } = batch[i]!;
          if (byIdentity.has(targets)) continue;
          const grouped: ByIdentity = new Map();
          byIdentity.set(targets, grouped);
          for (const [target, ids] of targets) {
            identities.set(target.identity.key, target.identity);
            entry(grouped, target.identity.key, () => []).push([target, ids]);
          }
        }
        const idents = [...identities.values()];
        const changes = indexes.map((i) => probeOf(batch[i]!.change));
        const images = indexes.map((i) => imageOf(batch[i]!.change));
        const [rows] = await Promise.all([
          this.check(table, changes, images, idents),
          ...[...new Set(idents.map((i) => i.role))].map((role) => this.loadReadable(table, role)),
        ]);
        for (const { identity, change } of rows) {
          const index = indexes[change]!;
          entry(visible, index, () => new Set<string>()).add(idents[identity]!.key);
        }
      }),
    );
    return visible;
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

  private async loadReadable(table: TableInfo, role: string): Promise<void> {
    const key = `${role}|${table.schema}.${table.table}`;
    const known = this.readable.get(key);
    if (known && Date.now() - known.at < GRANTS_TTL_MS) return;
    const rows = await this.options.sql<{ attname: string }[]>`
      select attname from pg_attribute
       where attrelid = ${relName(table)}::regclass and attnum > 0 and not attisdropped
         and has_column_privilege(${role}, attrelid, attnum, 'SELECT')`;
    this.readable.set(key, { at: Date.now(), columns: new Set(rows.map((r) => r.attname)) });
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
    const columns = table.columns.filter((c) => readable?.columns.has(c.name));
    const keyColumns = new Set([...table.primaryKey, 'auction_id']);
    const record = change.type === 'DELETE' ? {} : jsonRow(columns, change.record);
    // Old rows carry the primary key (and the tenant), never the rest: the row may no longer be visible.
    const old = change.type === 'INSERT' || !change.old ? {} : jsonRow(columns, change.old, keyColumns);
    return JSON.stringify({
      schema: table.schema,
      table: table.table,
      commit_timestamp: change.commitTimestamp,
      type: change.type,
      columns,
      record,
      old_record: old,
      errors: null,
    });
  }
}

/** The row a change is judged on: the new row, or the old one of a delete. */
function imageOf(change: Change): TupleValues {
  return change.type === 'DELETE' ? change.old! : change.record;
}

/** The row image the policies judge: text values as Postgres reads them back, JSON columns as JSON. */
function probeOf(change: Change): unknown {
  const row = imageOf(change);
  const image: Record<string, unknown> = {};
  for (const { name, type } of change.table.columns) {
    const v = row[name];
    if (v !== undefined) image[name] = v !== null && (type === 'json' || type === 'jsonb') ? JSON.parse(v) : v;
  }
  return image;
}

const NUMBER_TYPES = new Set(['int2', 'int4', 'float4', 'float8', 'numeric', 'oid']);

/** Postgres text values as JSON the way realtime-js expects them: numbers, booleans and JSON decoded. */
function jsonRow(columns: readonly Column[], row: TupleValues, only?: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { name, type } of columns) {
    if (only && !only.has(name)) continue;
    const v = row[name];
    if (v === undefined) continue;
    out[name] = v === null ? null : typed(type, v);
  }
  return out;
}

function typed(type: string, v: string): unknown {
  if (type === 'bool') return v === 't';
  if (NUMBER_TYPES.has(type)) return Number(v);
  if (type === 'int8') return Number.isSafeInteger(Number(v)) ? Number(v) : v;
  if (type === 'json' || type === 'jsonb') return JSON.parse(v);
  return v;
}
