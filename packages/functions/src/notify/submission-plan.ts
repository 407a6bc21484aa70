// Submission pushes (behind auctions.settings.push_on_submission): the auction's admins and owners, except the
// person who submitted, are told which location was counted and how many cars.
import type postgres from 'postgres';
import { tokensOfUsers } from '../push/push-sender.js';
import type { PushMessage } from '../push/push-provider.js';
import type { NotificationPlan } from './chat-plan.js';

export interface SubmissionEventData {
  id?: string;
  location_id?: string;
  location_name?: string;
  user_id?: string;
  submitted_by?: string;
  total_car_count?: number;
}

export async function planSubmissionNotification(
  sql: postgres.Sql,
  auctionId: string,
  data: SubmissionEventData,
): Promise<NotificationPlan> {
  const admins = await sql<Array<{ user_id: string }>>`
    select user_id from public.auction_members
     where auction_id = ${auctionId} and role in ('owner', 'admin')
       and user_id is distinct from ${data.user_id ?? null}::uuid
     order by role desc, joined_at`;
  const userIds = admins.map((a) => a.user_id);
  const tokens = await tokensOfUsers(sql, userIds);
  const cars = data.total_car_count ?? 0;
  const messages = tokens.map(
    (t): PushMessage => ({
      to: t.token,
      title: `New submission at ${data.location_name ?? 'a location'}`,
      body: `${data.submitted_by ?? 'Someone'} counted ${cars} ${cars === 1 ? 'car' : 'cars'}`,
      sound: 'default',
      priority: 'default',
      data: {
        type: 'submission',
        auction_id: auctionId,
        submission_id: data.id,
        location_id: data.location_id,
      },
    }),
  );
  return { messages, recipients: userIds.length, skipped: 0 };
}
