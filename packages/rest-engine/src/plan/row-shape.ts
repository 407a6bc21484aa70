// The shape of a read level's rows: the keys they carry, which a spread lifts into its parent's row, and whether the
// level aggregates its rows.
import type { PlannedSelect, ReadPlan } from './types.js';

/** The keys a level's rows carry: what a to-one spread lifts into the parent row, a to-many one turns into arrays. */
export function outputNames(plan: ReadPlan): string[] {
  const out: string[] = [];
  for (const s of plan.select) {
    if (s.kind === 'star') out.push(...plan.columns.keys());
    else if (s.kind !== 'embed') out.push(s.alias);
    else if (s.embed.spread) out.push(...outputNames(s.embed.plan));
    else if (s.embed.plan.select.some(contributes)) out.push(s.embed.name);
  }
  return out;
}

/**
 * Whether a select item adds anything to the row: an empty embed `rel()` only filters, and so does an embed that
 * selects only such embeds (`users_tasks(tasks(projects()))`), as in PostgREST.
 */
export function contributes(s: PlannedSelect): boolean {
  if (s.kind !== 'embed') return true;
  return s.embed.spread ? outputNames(s.embed.plan).length > 0 : s.embed.plan.select.some(contributes);
}

/** Whether a level aggregates its rows: aggregates of its own, or those of the to-one spreads it lifts. */
export const isAggregated = (plan: ReadPlan): boolean =>
  plan.select.some((s) => s.kind === 'aggregate' || (s.kind === 'embed' && s.embed.aggregates.size > 0));
