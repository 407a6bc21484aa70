// Who is told about a chat message, and what they see: the members of the channel's auction minus the sender,
// minus `none` preferences, `mentions` preferences only when mentioned; mentioned users first with priority high.
// Title `<sender> in #<channel>`, the content cut to 100 characters, and a deep link into the app.
import type postgres from 'postgres';
import { tokensOfUsers } from '../push/push-sender.js';
import type { PushMessage } from '../push/push-provider.js';

const CHAT_BODY_MAX = 100;

export interface NotificationPlan {
  /** In sending order (mentioned users' tokens first). */
  messages: PushMessage[];
  /** Users notified (with at least one token or not). */
  recipients: number;
  /** Members left out by their preference. */
  skipped: number;
}

interface MessageRow {
  id: string;
  auction_id: string;
  channel_id: string;
  location_id: string | null;
  user_id: string | null;
  content: string;
  message_type: string;
  is_deleted: boolean;
  mentions: string[];
  channel_name: string;
  sender_name: string;
}

/** The message as the job sees it, or undefined when it no longer exists. */
async function loadMessage(sql: postgres.Sql, messageId: string): Promise<MessageRow | undefined> {
  const [row] = await sql<MessageRow[]>`
    select m.id, m.auction_id, m.channel_id, c.location_id,
           m.user_id, m.content, m.message_type, m.is_deleted, m.mentions,
           c.name as channel_name, coalesce(public.user_display_name(m.user_id), 'Deleted user') as sender_name
      from public.messages m join public.channels c on c.id = m.channel_id
     where m.id = ${messageId}`;
  return row;
}

/** Cuts to `max` characters (code points, so no emoji is split), the last being an ellipsis when cut. */
export function truncateBody(content: string, max = CHAT_BODY_MAX): string {
  const chars = Array.from(content.replace(/\s+/g, ' ').trim());
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max - 1).join('')}…`;
}

export function chatDeepLink(appUrl: string, channelId: string, messageId: string): string {
  return `${appUrl.replace(/\/$/, '')}/chat/${channelId}?message=${messageId}`;
}

export async function planChatNotification(
  sql: postgres.Sql,
  messageId: string,
  appUrl: string,
): Promise<NotificationPlan> {
  const m = await loadMessage(sql, messageId);
  // Deleted before the job ran, or a system message: nobody is told.
  if (!m || m.is_deleted || m.message_type === 'system') return { messages: [], recipients: 0, skipped: 0 };
  // A channel tied to a location is read by team members assigned to it (and admins and owners): only they are told.
  const narrowed = m.location_id !== null;
  const members = await sql<Array<{ user_id: string; preference: string; mentioned: boolean }>>`
    select am.user_id, coalesce(p.preference, 'all') as preference,
           am.user_id = any(${m.mentions}::uuid[]) as mentioned
      from public.auction_members am
      left join public.channel_notification_preferences p on p.user_id = am.user_id and p.channel_id = ${m.channel_id}
     where am.auction_id = ${m.auction_id} and am.user_id is distinct from ${m.user_id}::uuid
       ${
         narrowed
           ? sql`and (am.role <> 'team_member' or exists (select 1 from public.location_assignments la
                      where la.location_id = ${m.location_id} and la.user_id = am.user_id))`
           : sql``
       }
     order by am.joined_at, am.user_id`;
  const mentioned: string[] = [];
  const others: string[] = [];
  let skipped = 0;
  for (const r of members) {
    if (r.preference === 'none' || (r.preference === 'mentions' && !r.mentioned)) skipped++;
    else (r.mentioned ? mentioned : others).push(r.user_id);
  }
  const mentionedSet = new Set(mentioned);
  const tokens = await tokensOfUsers(sql, [...mentioned, ...others]);
  const content = m.message_type === 'image' && m.content.trim() === '' ? 'sent an image' : m.content;
  const base = {
    title: `${m.sender_name} in #${m.channel_name}`,
    body: truncateBody(content),
    sound: 'default',
    data: {
      type: 'chat_message',
      auction_id: m.auction_id,
      channel_id: m.channel_id,
      message_id: m.id,
      deep_link: chatDeepLink(appUrl, m.channel_id, m.id),
    },
  };
  const messages = tokens.map(
    (t): PushMessage => ({ ...base, to: t.token, priority: mentionedSet.has(t.user_id) ? 'high' : 'default' }),
  );
  return { messages, recipients: mentioned.length + others.length, skipped };
}
