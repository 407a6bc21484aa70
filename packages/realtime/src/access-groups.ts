// Who needs a policy check for a table, and how few checks suffice: roles that read the table without row-level
// security need none, and identities of one class (declared by the schema's owner: same role, memberships and
// assignments) share one; where the table names its tenant, each group also knows the tenants it can see at all
// (tenant-scope.ts). Classes and tenants are cached per identity and dropped when the change stream shows a change
// to a table they depend on (e.g. the user's memberships), before later changes are judged.
import type postgres from 'postgres';
import { inRequestTransaction, qualified } from '@auction-ops/database';
import type { Change, TableInfo } from './change-capture.js';
import type { Identity } from './subscriber-identity.js';
import { entry } from './map-entry.js';
import { ExpiringAnswers } from './expiring-answers.js';

// How long a role's "reads the table without RLS" answer is trusted (policies can be created at any time).
const POLICY_TTL_MS = 5_000;
// Classes kept for at most this many identities; the oldest go first.
const MAX_IDENTITIES = 50_000;

interface AccessPlan {
  /** Indexes of identities that see every change of the table. */
  open: number[];
  /** Indexes of the other identities, grouped: checking the first of a group answers for all of it. */
  groups: number[][];
  /** Per group, the tenants its rows can belong to; null when not limited. */
  tenants: (ReadonlySet<string> | null)[];
  /** The table's tenant column, when it declares one. */
  tenantColumn: string | undefined;
}

/** An identity's class and tenants for one table. */
interface Scope {
  cls: string | null;
  tenants: ReadonlySet<string> | null;
  /** Class and tenants as one key (built once: plans group thousands of identities per batch by it). */
  groupKey: string;
}

export class AccessGroups {
  /** Per role and table, whether the role reads the table without policies. */
  private readonly policies = new ExpiringAnswers<boolean>(POLICY_TTL_MS);
  /** Per identity key: the user it names, and its class per table. */
  private readonly classes = new Map<string, { sub: string; byRel: Map<string, Scope> }>();
  private inputs = new Map<string, string>();
  /** Per table (`schema.table`), its declared tenant column. */
  private tenantColumns = new Map<string, string>();
  // Bumped by every invalidation: a class computed while one happened may predate it and is used, not kept.
  private epoch = 0;
  private readonly warming = new Map<string, Map<string, Identity>>();
  private warmTimer: NodeJS.Timeout | undefined;
  private readonly computing = new Map<string, Promise<Computed>>();
  /**
   * Plans by the identities they were made for: the change router passes the same array for as long as the
   * subscriptions of a table stay the same, and grouping thousands of identities again for every check was most of
   * the router's own CPU at 5,000 subscribers. A plan is used while no invalidation happened since it was made and
   * its roles' policy answers are still trusted.
   */
  private readonly plans = new WeakMap<
    readonly Identity[],
    { rel: string; epoch: number; at: number; plan: AccessPlan }
  >();

  constructor(private readonly sql: postgres.Sql) {}

  /** Reads which tables classes depend on (declared in realtime.identity_inputs). */
  async load(): Promise<void> {
    const rows = await this.sql<{ rel: string; user_column: string }[]>`
      select n.nspname || '.' || c.relname as rel, i.user_column
        from realtime.identity_inputs i join pg_class c on c.oid = i.rel
        join pg_namespace n on n.oid = c.relnamespace`;
    this.inputs = new Map(rows.map((r) => [r.rel, r.user_column]));
    const scoped = await this.sql<{ rel: string; tenant_column: string }[]>`
      select n.nspname || '.' || c.relname as rel, e.tenant_column
        from realtime.exposed_tables e join pg_class c on c.oid = e.rel
        join pg_namespace n on n.oid = c.relnamespace
       where e.tenant_column is not null`;
    this.tenantColumns = new Map(scoped.map((r) => [r.rel, r.tenant_column]));
  }

  /** Drops the classes of users whose class inputs changed. */
  noteChanges(changes: readonly Change[]): void {
    const users = new Set<string>();
    for (const c of changes) {
      const column = this.inputs.get(`${c.table.schema}.${c.table.table}`);
      if (!column) continue;
      for (const row of [c.record, c.old]) {
        const user = row?.[column];
        if (user) users.add(user);
      }
    }
    if (!users.size) return;
    this.epoch++;
    for (const [key, known] of this.classes) if (users.has(known.sub)) this.classes.delete(key);
  }

  reset(): void {
    this.epoch++;
    this.classes.clear();
    this.policies.clear();
  }

  /**
   * Works out, soon and in one call per table, the classes of identities that just subscribed, so the first
   * change after a wave of joins does not wait for them all.
   */
  warm(schema: string, table: string, identity: Identity): void {
    const rel = relName({ schema, table });
    if (this.classes.get(identity.key)?.byRel.has(rel)) return;
    entry(this.warming, rel, () => new Map()).set(identity.key, identity);
    if (this.warmTimer) return;
    this.warmTimer = setTimeout(() => {
      this.warmTimer = undefined;
      const pending = [...this.warming];
      this.warming.clear();
      for (const [rel, identities] of pending) {
        void this.classesOf(rel, [...identities.values()]).catch(() => {});
        // And whether their roles read the table without policies, asked once per role.
        const byRole = new Map([...identities.values()].map((i) => [i.role, i]));
        for (const identity of byRole.values()) void this.readsEverything(rel, identity).catch(() => {});
      }
    }, 20);
    this.warmTimer.unref();
  }

  async plan(table: TableInfo, identities: readonly Identity[]): Promise<AccessPlan> {
    const rel = relName(table);
    const known = this.plans.get(identities);
    if (known && known.rel === rel && known.epoch === this.epoch && Date.now() - known.at < POLICY_TTL_MS)
      return known.plan;
    const epoch = this.epoch;
    const roles = [...new Set(identities.map((i) => i.role))];
    const openRoles = new Set<string>();
    await Promise.all(
      roles.map(async (role) => {
        if (await this.readsEverything(rel, identities.find((i) => i.role === role)!)) openRoles.add(role);
      }),
    );
    // The plan is as old as the oldest policy answer it rests on.
    const at = Math.min(Date.now(), ...roles.map((role) => this.policies.last(`${role}|${rel}`)?.at ?? Date.now()));
    const open: number[] = [];
    const rest: number[] = [];
    identities.forEach((identity, i) => {
      (openRoles.has(identity.role) ? open : rest).push(i);
    });
    const scopes = await this.classesOf(
      rel,
      rest.map((i) => identities[i]!),
    );
    const byClass = new Map<string, { members: number[]; tenants: ReadonlySet<string> | null }>();
    const groups: number[][] = [];
    const tenants: (ReadonlySet<string> | null)[] = [];
    rest.forEach((index, n) => {
      const scope = scopes[n]!;
      if (scope.cls == null) {
        groups.push([index]);
        tenants.push(scope.tenants);
        return;
      }
      // Identities of one class see the same tenants; keyed by both all the same, so none is checked for another's.
      entry(byClass, `${identities[index]!.role}|${scope.groupKey}`, () => ({
        members: [],
        tenants: scope.tenants,
      })).members.push(index);
    });
    for (const group of byClass.values()) {
      groups.push(group.members);
      tenants.push(group.tenants);
    }
    const plan = { open, groups, tenants, tenantColumn: this.tenantColumns.get(`${table.schema}.${table.table}`) };
    // Kept only if nothing was invalidated while it was made: its classes may predate the invalidation.
    if (epoch === this.epoch) this.plans.set(identities, { rel, epoch, at, plan });
    return plan;
  }

  /** Whether the identity's role reads the table without policies; one query per role and table at a time. */
  private readsEverything(rel: string, identity: Identity): Promise<boolean> {
    return this.policies.get(`${identity.role}|${rel}`, async () => {
      const [row] = await inRequestTransaction(
        this.sql,
        identity.role,
        JSON.parse(identity.claims),
        (tx) => tx<{ qual: string | null }[]>`select realtime.select_policy(${rel}::regclass) as qual`,
      );
      return row?.qual === 'true';
    });
  }

  /**
   * The class of each identity for the table; computed in one call for those not cached. A computation already
   * under way for an identity (warming after its join) is awaited rather than repeated, unless an invalidation
   * happened since it started.
   */
  private async classesOf(rel: string, identities: readonly Identity[]): Promise<Scope[]> {
    const fresh = new Map<string, Scope>();
    const waiting = new Set<Promise<Computed>>();
    if (this.computing.size)
      for (const i of identities) {
        const pending = this.computing.get(`${i.key}|${rel}`);
        if (pending !== undefined) waiting.add(pending);
      }
    for (const done of await Promise.all(waiting))
      if (done.epoch === this.epoch) for (const [key, cls] of done.classes) fresh.set(key, cls);
    const missing = identities.filter((i) => !fresh.has(i.key) && !this.classes.get(i.key)?.byRel.has(rel));
    const unique = [...new Map(missing.map((i) => [i.key, i])).values()];
    if (unique.length) {
      const work = this.compute(rel, unique);
      const keys = unique.map((i) => `${i.key}|${rel}`);
      for (const key of keys) this.computing.set(key, work);
      try {
        for (const [key, cls] of (await work).classes) fresh.set(key, cls);
      } finally {
        for (const key of keys) if (this.computing.get(key) === work) this.computing.delete(key);
      }
    }
    return identities.map((i) => fresh.get(i.key) ?? this.classes.get(i.key)?.byRel.get(rel) ?? UNSCOPED);
  }

  private async compute(rel: string, identities: readonly Identity[]): Promise<Computed> {
    const epoch = this.epoch;
    const rows = await this.sql<{ identity: number; class: string | null; tenants: string[] | null }[]>`
      select identity, class, tenants from realtime.identity_scopes(array[${rel}::regclass],
        ${JSON.stringify(identities.map((i) => ({ role: i.role, claims: i.claims })))}::text::jsonb)`;
    const found = new Map(rows.map((r) => [r.identity, r]));
    const classes = new Map<string, Scope>();
    identities.forEach((identity, n) => {
      const row = found.get(n);
      const scope: Scope = row ? scopeOf(row.class, row.tenants) : UNSCOPED;
      classes.set(identity.key, scope);
      if (epoch === this.epoch)
        entry(this.classes, identity.key, () => ({ sub: identity.sub, byRel: new Map() })).byRel.set(rel, scope);
    });
    while (this.classes.size > MAX_IDENTITIES) this.classes.delete(this.classes.keys().next().value!);
    return { epoch, classes };
  }
}

interface Computed {
  /** The invalidation epoch the computation started in. */
  epoch: number;
  classes: Map<string, Scope>;
}

function scopeOf(cls: string | null, tenants: string[] | null): Scope {
  const groupKey = `${cls}|${tenants === null ? '*' : [...tenants].sort().join(',')}`;
  return { cls, tenants: tenants === null ? null : new Set(tenants), groupKey };
}

/** No class, tenants not limited: the identity is checked alone, for every change. */
const UNSCOPED: Scope = scopeOf(null, null);

export function relName(table: Pick<TableInfo, 'schema' | 'table'>): string {
  return qualified(table.schema, table.table);
}
