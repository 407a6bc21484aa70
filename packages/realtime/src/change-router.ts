// Routes captured changes to postgres_changes subscribers: matches bindings in memory (table, event, filter),
// then asks Postgres which subscribers may see which changes, with one call per table for everything that
// arrived while the previous call ran (however many subscribers and changes), and delivers in commit order.
import type postgres from 'postgres';
import type { Change, TableInfo } from './change-capture.js';
import type { Binding, ChangeTarget } from './change-binding.js';
import { changePayload, imageOf, probeOf } from './change-payload.js';
import { BindingIndex } from './binding-index.js';
import { AccessGroups } from './access-groups.js';
import { type ByIdentity, IdentityGroupings, type MatchTargets } from './identity-grouping.js';
import { ReadableColumns } from './readable-columns.js';
import { VisibilityCheck } from './visibility-check.js';
import { entry } from './map-entry.js';

// While changes keep coming, policy checks start at most this often: each call has a fixed cost in Postgres, and
// checking back to back would pay it for every change of a steady stream. Short, since a change waits for it, and
// with tenant scopes most of a check's cost is per change and tenant, which gathering does not share (5,000
// subscribers at 200 changes/s: 25 ms gave p50 25 ms; 10 ms gives 12 ms for 0.2 ms more Postgres CPU per change).
const CHECK_INTERVAL_MS = 10;
// How many times a batch is checked at most: once, then again for subscribers whose identity changed meanwhile.
const MAX_CHECKS = 3;

interface Routed {
  change: Change;
  /** Per target, the ids of its bindings the change matched; shared by changes when no filter decided it. */
  targets: MatchTargets;
}

interface Checked {
  batch: Routed[];
  /** The count of identity changes when the batch's targets were grouped. */
  epoch: number;
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
  private readonly unfiltered = new Map<string, MatchTargets>();
  private queue: Routed[] = [];
  private pumping = false;
  private stopped = false;
  private readonly readable: ReadableColumns;
  private readonly access: AccessGroups;
  private readonly visibility: VisibilityCheck;
  private readonly groupings = new IdentityGroupings();
  /** Counts channels whose identity changed (a token with other claims): a batch checked before is looked over. */
  private identityEpoch = 0;

  constructor(options: ChangeRouterOptions) {
    this.readable = new ReadableColumns(options.sql);
    this.access = new AccessGroups(options.sql);
    this.visibility = new VisibilityCheck(options.sql, this.access, options.log);
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
    void this.readable.load(binding, binding.target.identity.role).catch(() => {});
  }

  remove(binding: Binding): void {
    const key = `${binding.schema}.${binding.table}`;
    const index = this.bindings.get(key);
    index?.delete(binding);
    this.unfiltered.clear();
    if (index?.size === 0) this.bindings.delete(key);
  }

  /** A subscriber's identity changed: changes checked for its old one are checked again before they reach it. */
  identityChanged(): void {
    this.identityEpoch++;
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
    this.visibility.stop();
    this.queue = [];
  }

  private match(change: Change): MatchTargets {
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
        const checked = await checking;
        const more = this.queue.length > 0 && !this.stopped;
        if (more) checking = this.checkNext();
        await this.deliverChecked(checked);
        if (!more) break;
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Takes what is queued, once the interval since the last call that evaluated policies has passed, and checks it. */
  private async checkNext(): Promise<Checked> {
    const wait = this.visibility.lastCall + CHECK_INTERVAL_MS - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const batch = this.queue;
    this.queue = [];
    return this.check(batch);
  }

  private async check(batch: Routed[]): Promise<Checked> {
    const epoch = this.identityEpoch;
    const byIdentity = new Map<Routed['targets'], ByIdentity>();
    const visible = await this.authorize(batch, byIdentity);
    return { batch, epoch, visible, byIdentity };
  }

  /**
   * Delivers a checked batch in order. A target whose identity changed while the batch was checked is judged again
   * as who it is now, and gets those changes before any later batch: a change both tokens may see is not lost to
   * the switch, and one only the old token could see is not sent under the new one.
   */
  private async deliverChecked(checked: Checked): Promise<void> {
    let { batch, epoch, visible, byIdentity } = checked;
    for (let round = 1; ; round++) {
      const moved = epoch === this.identityEpoch ? undefined : new Map<number, Map<ChangeTarget, readonly number[]>>();
      batch.forEach((routed, index) => {
        const movedHere = moved && new Map<ChangeTarget, readonly number[]>();
        this.deliver(routed, visible.get(index), byIdentity.get(routed.targets)!, movedHere);
        if (movedHere?.size) moved!.set(index, movedHere);
      });
      // A client still switching tokens after the last check loses those changes: none is sent under claims it was
      // not checked for.
      if (!moved?.size || this.stopped || round === MAX_CHECKS) return;
      ({ batch, epoch, visible, byIdentity } = await this.check(
        [...moved].map(([index, targets]) => ({ change: batch[index]!.change, targets })),
      ));
    }
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
          const grouping = this.groupings.of(targets);
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
          this.visibility.visible(table, changes, images, idents),
          ...[...new Set(matches.flatMap((m) => m.roles))].map((role) => this.readable.load(table, role)),
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
   * To the targets of the identities allowed, each still joined under the identity it was checked as. With `moved`,
   * identities may have changed since the check: every target whose identity did is put there instead.
   */
  private deliver(
    routed: Routed,
    allowed: Set<string> | undefined,
    byIdentity: ByIdentity,
    moved?: Map<ChangeTarget, readonly number[]>,
  ): void {
    const byRole = new Map<string, string>();
    for (const key of moved ? byIdentity.keys() : (allowed ?? [])) {
      const seen = allowed?.has(key) === true;
      for (const [target, ids] of byIdentity.get(key) ?? []) {
        if (!target.joined) continue;
        if (target.identity.key !== key) {
          moved?.set(target, ids);
          continue;
        }
        if (!seen) continue;
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
    return changePayload(change, this.readable.readable(change.table, role));
  }
}
