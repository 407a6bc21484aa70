// Test fixtures: auth users (the auth-core trigger fills public.users) and auctions with members of every role.
import type postgres from 'postgres';

export async function createUser(sql: postgres.Sql, email: string, fullName: string): Promise<string> {
  const [u] = await sql`insert into auth.users (email, raw_user_meta_data)
      values (${email}, ${sql.json({ full_name: fullName })}) returning id`;
  return u.id as string;
}

export interface AuctionFixture {
  auctionId: string;
  owner: string;
  admin: string;
  member: string;
}

export async function createAuction(sql: postgres.Sql, slug: string, timezone = 'UTC'): Promise<AuctionFixture> {
  const owner = await createUser(sql, `owner@${slug}.test`, `Owner ${slug}`);
  const admin = await createUser(sql, `admin@${slug}.test`, `Admin ${slug}`);
  const member = await createUser(sql, `member@${slug}.test`, `Member ${slug}`);
  const [a] = await sql`insert into public.auctions (name, slug, settings)
      values (${`Auction ${slug}`}, ${slug}, ${sql.json({ timezone })}) returning id`;
  await sql`insert into public.auction_members (auction_id, user_id, role) values
    (${a.id}, ${owner}, 'owner'), (${a.id}, ${admin}, 'admin'), (${a.id}, ${member}, 'team_member')`;
  return { auctionId: a.id as string, owner, admin, member };
}
