// Invitations for generate-invite-link and send-invite-email: created through invite_user_to_auction under the
// caller's role and claims (so the same rules apply and member.invited is emitted), with the requested lifetime;
// and looked up by token for a resend, refusing expired, revoked and accepted ones.
import type postgres from 'postgres';
import { inRequestTransaction } from '@auction-ops/database';
import { functionErrors } from '../errors.js';
import type { Caller } from '../family/function-definition.js';

export type AuctionRole = 'owner' | 'admin' | 'team_member';
export const AUCTION_ROLES: readonly AuctionRole[] = ['owner', 'admin', 'team_member'];
export const DEFAULT_INVITE_DAYS = 7;

export type { Caller };

export interface Invitation {
  invitation_id: string;
  token: string;
  auction_id: string;
  email: string;
  role: AuctionRole;
  expires_at: string;
  invited_by: string | null;
}

/** Placeholder addresses of link invitations end in the reserved .invalid domain. */
function isPlaceholderEmail(email: string): boolean {
  return email.toLowerCase().endsWith('.invalid');
}

export function inviteUrl(appUrl: string, token: string): string {
  return `${appUrl.replace(/\/$/, '')}/invite?token=${encodeURIComponent(token)}`;
}

export async function createInvitation(
  sql: postgres.Sql,
  caller: Caller,
  input: { auctionId: string; role: AuctionRole; email?: string; expiresInDays: number },
): Promise<Invitation> {
  try {
    return await inRequestTransaction(sql, caller.role, caller.claims, async (tx) => {
      await tx`select set_config('auction_ops.invite_expires_in_days', ${String(input.expiresInDays)}, true)`;
      const [{ r }] = await tx<[{ r: { invitation_id: string; token: string; expires_at: string } }]>`
        select public.invite_user_to_auction(${input.auctionId}, ${input.email ?? null}, ${input.role}) as r`;
      const [row] = await tx<[{ email: string; invited_by: string | null }]>`
        select email, invited_by from public.auction_invitations where id = ${r.invitation_id}`;
      return {
        invitation_id: r.invitation_id,
        token: r.token,
        auction_id: input.auctionId,
        email: row?.email ?? input.email ?? '',
        role: input.role,
        expires_at: new Date(r.expires_at).toISOString(),
        invited_by: row?.invited_by ?? null,
      };
    });
  } catch (error) {
    throw mapInviteError(error);
  }
}

/** An invitation found by its token, for a resend by an admin (owners only for owner invitations). */
export async function findInvitationForResend(
  ownerSql: postgres.Sql,
  caller: Caller,
  token: string,
): Promise<Invitation> {
  const [inv] = await ownerSql<
    Array<{
      id: string;
      auction_id: string;
      email: string;
      role: AuctionRole;
      expires_at: Date;
      invited_by: string | null;
      accepted_at: Date | null;
      revoked_at: Date | null;
      caller_role: string | null;
    }>
  >`
    select i.id, i.auction_id, i.email, i.role, i.expires_at, i.invited_by, i.accepted_at, i.revoked_at,
           (select m.role from public.auction_members m
             where m.auction_id = i.auction_id and m.user_id = ${caller.userId ?? null}::uuid)
             as caller_role
      from public.auction_invitations i
     where i.token_hash = encode(sha256(convert_to(${token}, 'UTF8')), 'hex')
       -- An invitation to a deleted auction is not sent again, by anyone: it could not be accepted either.
       and not exists (select 1 from public.auctions a where a.id = i.auction_id and a.deleted_at is not null)`;
  const privileged = caller.role === 'service_role' || (await isSuperAdmin(ownerSql, caller.userId));
  const callerRole = privileged ? 'owner' : inv?.caller_role;
  if (!inv || !callerRole) throw functionErrors.notFound('invitation not found');
  if (callerRole === 'team_member')
    throw functionErrors.forbidden('only auction admins and owners can send invitations');
  if (inv.role === 'owner' && callerRole !== 'owner') throw functionErrors.forbidden('only owners can invite owners');
  if (inv.revoked_at) throw functionErrors.validation('invitation has been revoked');
  if (inv.accepted_at) throw functionErrors.validation('invitation has already been used');
  if (inv.expires_at.getTime() <= Date.now()) throw functionErrors.validation('invitation has expired');
  if (isPlaceholderEmail(inv.email))
    throw functionErrors.validation('a shareable link invitation has no e-mail address to send to');
  return {
    invitation_id: inv.id,
    token,
    auction_id: inv.auction_id,
    email: inv.email,
    role: inv.role,
    expires_at: inv.expires_at.toISOString(),
    invited_by: inv.invited_by,
  };
}

async function isSuperAdmin(sql: postgres.Sql, userId: string | undefined): Promise<boolean> {
  if (!userId) return false;
  const [row] = await sql`select 1 from public.super_admins where user_id = ${userId}`;
  return row !== undefined;
}

/** The RPC's errors in the functions' codes: permission 403, broken rules 400. */
function mapInviteError(error: unknown): unknown {
  const e = error as { code?: string; message?: string };
  if (e.code === '42501') return functionErrors.forbidden(e.message ?? 'permission denied');
  if (e.code === '22023' || e.code === 'P0001' || e.code === '22P02')
    return functionErrors.validation(e.message ?? 'invalid invitation');
  if (e.code === '23503') return functionErrors.notFound('auction not found');
  return error;
}
