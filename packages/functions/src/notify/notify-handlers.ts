// The six notification functions as handlers: parse the body, make one call into the services, return the JSON
// answer. The family adapter (routing, caller resolution, limits, errors) calls them; see the registry.
import type postgres from 'postgres';
import type { Mailer } from '@auction-ops/auth-core';
import { functionErrors } from '../errors.js';
import { type Caller, createInvitation, findInvitationForResend, inviteUrl } from '../invites/invitation-service.js';
import { sendAccountDeletionMail } from '../mail/account-deletion-mail.js';
import { sendInviteMail } from '../mail/invite-mail.js';
import type { PushProvider } from '../push/push-provider.js';
import { sendPushNotifications } from '../push/send-push-service.js';
import { notifyChatMessage } from './chat-notify-service.js';
import {
  parseAccountDeletion,
  parseChatNotification,
  parseInviteEmail,
  parseInviteLink,
  parsePendingCheck,
  parseSendPush,
} from './notify-requests.js';
import { runPendingCheck } from './pending-check.js';

export interface NotifyDeps {
  /** Request pool (authenticator): work done under the caller's role and claims. */
  sql: postgres.Sql;
  /** Owner pool: queue, provider bookkeeping, lookups across tenants. */
  ownerSql: postgres.Sql;
  provider: PushProvider;
  mailer: Mailer;
  appUrl: string;
  leaseMs: number;
  workerId: string;
  log: { warn(msg: string, fields?: Record<string, unknown>): void };
}

type NotifyHandler = (deps: NotifyDeps, caller: Caller, body: unknown) => Promise<unknown>;

const sendPushHandler: NotifyHandler = (deps, caller, body) =>
  sendPushNotifications({ ownerSql: deps.ownerSql, provider: deps.provider }, caller, parseSendPush(body));

const sendChatNotificationHandler: NotifyHandler = (deps, caller, body) =>
  notifyChatMessage(deps, caller, parseChatNotification(body).message_id);

const checkPendingHandler: NotifyHandler = async (deps, caller, body) => {
  if (caller.role !== 'service_role')
    throw functionErrors.forbidden('check-pending-submissions needs the service role');
  const { now } = parsePendingCheck(body);
  return runPendingCheck({ sql: deps.ownerSql, provider: deps.provider, log: deps.log }, { now, wait: true });
};

const generateInviteLinkHandler: NotifyHandler = async (deps, caller, body) => {
  const input = parseInviteLink(body);
  const inv = await createInvitation(deps.sql, caller, input);
  return {
    invitation_id: inv.invitation_id,
    token: inv.token,
    invite_url: inviteUrl(deps.appUrl, inv.token),
    role: inv.role,
    email: input.email ? inv.email : null,
    expires_at: inv.expires_at,
  };
};

const sendInviteEmailHandler: NotifyHandler = async (deps, caller, body) => {
  const request = parseInviteEmail(body);
  const inv =
    request.kind === 'resend'
      ? await findInvitationForResend(deps.ownerSql, caller, request.token)
      : await createInvitation(deps.sql, caller, request);
  const mail = await sendInviteMail(deps, caller, inv);
  return {
    invitation_id: inv.invitation_id,
    email: inv.email,
    role: inv.role,
    expires_at: inv.expires_at,
    ...mail,
  };
};

const sendAccountDeletionEmailHandler: NotifyHandler = (deps, caller, body) =>
  sendAccountDeletionMail(deps, caller, parseAccountDeletion(body));

/** Name, handler and per-user limit of each function (requests per minute). */
export const NOTIFY_FUNCTIONS = [
  { name: 'send-push-notifications', handler: sendPushHandler, perMinute: 100, serviceRoleOnly: false },
  { name: 'send-chat-notification', handler: sendChatNotificationHandler, perMinute: 120, serviceRoleOnly: false },
  { name: 'check-pending-submissions', handler: checkPendingHandler, perMinute: 120, serviceRoleOnly: true },
  { name: 'generate-invite-link', handler: generateInviteLinkHandler, perMinute: 120, serviceRoleOnly: false },
  { name: 'send-invite-email', handler: sendInviteEmailHandler, perMinute: 120, serviceRoleOnly: false },
  {
    name: 'send-account-deletion-email',
    handler: sendAccountDeletionEmailHandler,
    perMinute: 120,
    serviceRoleOnly: false,
  },
] as const;
