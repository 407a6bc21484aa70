// The demo rock reports (problem reports) in every state of the workflow, with their facts, potential causes and
// actions (countermeasures), dated a few days apart before `now`.
import type postgres from 'postgres';
import { PEOPLE, ROCK_REPORTS } from './demo-data.js';
import type { SeededAuction } from './demo-auctions.js';

export async function insertRockReports(
  tx: postgres.TransactionSql,
  auctions: SeededAuction[],
  membersOf: Record<string, string[]>,
  now: Date,
): Promise<void> {
  for (const [ai, auction] of auctions.entries()) {
    const reports = ai === 0 ? ROCK_REPORTS : ROCK_REPORTS.slice(0, 3);
    const members = membersOf[auction.id]!;
    for (const [ri, r] of reports.entries()) {
      const at = new Date(now.getTime() - (ri * 6 + 2) * 86_400_000);
      const [p] = await tx`
        insert into public.problem_reports (auction_id, issue_name, area, location_id, prepared_by, assigned_to,
          status, submitted_at, closed_at, created_at, updated_at)
        values (${auction.id}, ${r.issue}, ${r.area},
          (select id from public.locations where auction_id = ${auction.id} order by name offset ${ri % 2} limit 1),
          ${members[(ri + 2) % members.length]!}, ${ri % 3 === 2 ? null : members[ri % 2 === 0 ? 1 : 0]!},
          'open', ${at}, ${r.status === 'closed' ? new Date(at.getTime() + 3 * 86_400_000) : null}, ${at}, ${at})
        returning id`;
      // Inserted open, then moved: the status workflow trigger (when it runs) only accepts new reports as open.
      if (r.status !== 'open') await tx`update public.problem_reports set status = ${r.status} where id = ${p!.id}`;
      await tx`insert into public.problem_facts (auction_id, problem_id, who, what, where_field,
        when_field, how_many, how_much, created_by)
        values (${auction.id}, ${p!.id}, 'Lot crew', ${r.issue}, ${r.area}, 'Weekday mornings', ${`${3 + ri} units`},
          ${`$${(ri + 1) * 350}`}, ${members[0]!})`;
      for (const [ci, cause] of r.causes.entries()) {
        await tx`insert into public.potential_causes (auction_id, problem_id, cause_text, order_number, created_by)
          values (${auction.id}, ${p!.id}, ${cause}, ${ci + 1}, ${members[0]!})`;
      }
      for (const [issue, countermeasure, status] of r.actions) {
        await tx`insert into public.problem_actions (auction_id, problem_id, issue, countermeasure,
          responsible_person, completion_date, status, completed_at, created_by)
          values (${auction.id}, ${p!.id}, ${issue}, ${countermeasure}, ${PEOPLE[1 + (ri % 3)]!.fullName},
            ${new Date(at.getTime() + 14 * 86_400_000).toISOString().slice(0, 10)}, ${status},
              ${status === 'complete' ? at : null}, ${members[0]!})`;
      }
    }
  }
}
