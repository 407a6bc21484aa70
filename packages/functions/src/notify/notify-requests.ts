// Request bodies of the six notification functions, checked field by field: a missing field or a value of the
// wrong type is INVALID_REQUEST (details names the field); a well-formed value that breaks a rule (a limit, an
// unknown role, an expiry out of range) is VALIDATION_ERROR.
import { functionErrors } from '../errors.js';
import { AUCTION_ROLES, type AuctionRole, DEFAULT_INVITE_DAYS } from '../invites/invitation-service.js';
import type { SendPushInput } from '../push/send-push-service.js';
import { MAX_PUSH_TOKENS } from '../push/send-push-service.js';
import type { PushPriority } from '../push/push-provider.js';

type Body = Record<string, unknown>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_DATA_BYTES = 4096;

function asBody(value: unknown): Body {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw functionErrors.invalidRequest('body', 'the request body must be a JSON object');
  return value as Body;
}

function uuid(body: Body, field: string): string {
  const v = body[field];
  if (v === undefined || v === null) throw functionErrors.invalidRequest(field);
  if (typeof v !== 'string' || !UUID.test(v)) throw functionErrors.invalidRequest(field, `${field} must be a UUID`);
  return v.toLowerCase();
}

function text(body: Body, field: string, max: number, required: true): string;
function text(body: Body, field: string, max: number, required: false): string | undefined;
function text(body: Body, field: string, max: number, required: boolean): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) {
    if (required) throw functionErrors.invalidRequest(field);
    return undefined;
  }
  if (typeof v !== 'string') throw functionErrors.invalidRequest(field, `${field} must be a string`);
  if (required && v.trim() === '') throw functionErrors.invalidRequest(field, `${field} must not be empty`);
  if (Array.from(v).length > max) throw functionErrors.validation(`${field} is longer than ${max} characters`, field);
  return v;
}

function stringArray(body: Body, field: string, maxItems: number, maxLength: number, check?: RegExp) {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string' || (check && !check.test(x))))
    throw functionErrors.invalidRequest(field, `${field} must be an array of ${check ? 'UUIDs' : 'strings'}`);
  if (v.length > maxItems) throw functionErrors.validation(`${field} may hold at most ${maxItems} items`, field);
  if (v.some((x: string) => x.length > maxLength))
    throw functionErrors.validation(`each of ${field} is at most ${maxLength} characters`, field);
  return v as string[];
}

function role(body: Body): AuctionRole {
  const r = text(body, 'role', 32, true);
  if (!(AUCTION_ROLES as readonly string[]).includes(r))
    throw functionErrors.validation('role must be owner, admin or team_member', 'role');
  return r as AuctionRole;
}

function expiresInDays(body: Body): number {
  const v = body.expires_in_days;
  if (v === undefined || v === null) return DEFAULT_INVITE_DAYS;
  if (typeof v !== 'number') throw functionErrors.invalidRequest('expires_in_days', 'expires_in_days must be a number');
  if (!Number.isInteger(v) || v < 1 || v > 30)
    throw functionErrors.validation('expires_in_days must be a whole number from 1 to 30', 'expires_in_days');
  return v;
}

export function parseSendPush(raw: unknown): SendPushInput {
  const body = asBody(raw);
  const input: SendPushInput = {
    auction_id: uuid(body, 'auction_id'),
    title: text(body, 'title', 200, true),
    body: text(body, 'body', 2000, true),
    notification_type: text(body, 'notification_type', 64, true),
  };
  const userIds = stringArray(body, 'user_ids', 1000, 36, UUID);
  const tokens = stringArray(body, 'tokens', 1000, 512);
  if (!userIds?.length && !tokens?.length)
    throw functionErrors.invalidRequest('user_ids', 'user_ids or tokens is required');
  if ((tokens?.length ?? 0) > MAX_PUSH_TOKENS)
    throw functionErrors.validation(`at most ${MAX_PUSH_TOKENS} tokens in one request`, 'tokens');
  input.user_ids = userIds;
  input.tokens = tokens;
  if (body.data !== undefined && body.data !== null) {
    if (typeof body.data !== 'object' || Array.isArray(body.data))
      throw functionErrors.invalidRequest('data', 'data must be a JSON object');
    if (Buffer.byteLength(JSON.stringify(body.data)) > MAX_DATA_BYTES)
      throw functionErrors.validation(`data is larger than ${MAX_DATA_BYTES} bytes`, 'data');
    input.data = body.data as Record<string, unknown>;
  }
  if (body.sound !== undefined) {
    if (body.sound !== null && typeof body.sound !== 'string')
      throw functionErrors.invalidRequest('sound', 'sound must be a string or null');
    input.sound = body.sound as string | null;
  }
  if (body.badge !== undefined) {
    if (typeof body.badge !== 'number') throw functionErrors.invalidRequest('badge', 'badge must be a number');
    if (!Number.isInteger(body.badge) || body.badge < 0)
      throw functionErrors.validation('badge must be a whole number of 0 or more', 'badge');
    input.badge = body.badge;
  }
  if (body.priority !== undefined) {
    if (!['default', 'normal', 'high'].includes(body.priority as string))
      throw functionErrors.validation('priority must be default, normal or high', 'priority');
    input.priority = body.priority as PushPriority;
  }
  return input;
}

export function parseChatNotification(raw: unknown): { message_id: string } {
  return { message_id: uuid(asBody(raw), 'message_id') };
}

export function parsePendingCheck(raw: unknown): { now?: Date } {
  const body = asBody(raw);
  if (body.now === undefined || body.now === null) return {};
  const at = typeof body.now === 'string' ? new Date(body.now) : undefined;
  if (!at || Number.isNaN(at.getTime())) throw functionErrors.invalidRequest('now', 'now must be an ISO 8601 time');
  return { now: at };
}

export function parseInviteLink(raw: unknown) {
  const body = asBody(raw);
  return {
    auctionId: uuid(body, 'auction_id'),
    role: role(body),
    email: text(body, 'email', 320, false)?.trim() || undefined,
    expiresInDays: expiresInDays(body),
  };
}

type InviteEmailRequest =
  | { kind: 'resend'; token: string }
  | { kind: 'new'; auctionId: string; email: string; role: AuctionRole; expiresInDays: number };

export function parseInviteEmail(raw: unknown): InviteEmailRequest {
  const body = asBody(raw);
  if (body.token !== undefined && body.token !== null) return { kind: 'resend', token: text(body, 'token', 256, true) };
  if (body.auction_id === undefined)
    throw functionErrors.invalidRequest('auction_id', 'auction_id or token is required');
  return {
    kind: 'new',
    auctionId: uuid(body, 'auction_id'),
    email: text(body, 'email', 320, true).trim(),
    role: role(body),
    expiresInDays: expiresInDays(body),
  };
}

export function parseAccountDeletion(raw: unknown): { deleted?: string[]; preserved?: string[] } {
  const body = asBody(raw);
  return {
    deleted: stringArray(body, 'deleted_items', 50, 300),
    preserved: stringArray(body, 'preserved_items', 50, 300),
  };
}
