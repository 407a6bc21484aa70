// Auctions: search by name or slug, each with its tier and its counts of locations and members (admin_auctions),
// and an auction's members with their roles (a plain /rest/v1 read: super admins see them through the policies),
// and a download of an auction's archive (/console/api/auctions/:id/export, super admins only).
import { countedTable, dataTable, h, markReady, searchForm } from '../dom.js';
import { consoleDownload, rest } from '../session.js';

interface AuctionRow {
  id: string;
  name: string;
  slug: string;
  subscription_tier: string;
  is_active: boolean;
  location_count: number;
  member_count: number;
}

interface MemberRow {
  role: string;
  joined_at: string;
  users: { email: string | null; full_name: string | null } | null;
}

async function membersOf(auction: AuctionRow, into: HTMLElement): Promise<void> {
  const { data, error } = await (await rest())
    .from('auction_members')
    .select('role, joined_at, users(email, full_name)')
    .eq('auction_id', auction.id)
    .order('role')
    .limit(500);
  if (error) throw new Error(error.message);
  const members = (data ?? []) as unknown as MemberRow[];
  into.replaceChildren(
    dataTable(
      `Members of ${auction.name}`,
      ['E-mail', 'Name', 'Role', 'Joined'],
      members.map((m) => [m.users?.email ?? '—', m.users?.full_name ?? '—', m.role, m.joined_at.slice(0, 10)]),
    ),
  );
}

/** Downloads the auction's archive (rows and objects, no webhook secrets); says so while it runs or if it fails. */
function exportButton(auction: AuctionRow): HTMLElement {
  const note = h('span', { 'aria-live': 'polite' });
  const button = h('button', { type: 'button' }, `Download ${auction.name}`) as HTMLButtonElement;
  button.addEventListener('click', () => {
    button.disabled = true;
    note.textContent = ' exporting…';
    consoleDownload(`auctions/${encodeURIComponent(auction.id)}/export`)
      .then(() => {
        note.textContent = ' downloaded';
      })
      .catch((error: Error) => {
        note.textContent = ` export failed: ${error.message}`;
      })
      .finally(() => {
        button.disabled = false;
      });
  });
  return h('span', {}, button, note);
}

export async function renderAuctions(main: HTMLElement, params: URLSearchParams): Promise<void> {
  const query = params.get('q') ?? '';
  const { data, error } = await (await rest()).rpc('admin_auctions', { p_query: query });
  if (error) throw new Error(error.message);
  const auctions = (data ?? []) as unknown as AuctionRow[];
  const members = h('section', { 'aria-label': 'Auction members' });
  main.replaceChildren(
    h('h1', {}, 'Auctions'),
    searchForm('auctions', 'Search by name or slug', query),
    countedTable(
      auctions,
      'auction',
      'No auction matches.',
      ['Name', 'Slug', 'Tier', 'Active', 'Locations', 'Members', 'Export'],
      (a) => [
        a.name,
        a.slug,
        a.subscription_tier,
        a.is_active ? 'yes' : 'no',
        a.location_count,
        h(
          'button',
          { type: 'button', onclick: (() => void membersOf(a, members)) as EventListener },
          `${a.member_count} members of ${a.name}`,
        ),
        exportButton(a),
      ],
    ),
    members,
  );
  markReady('auctions');
}
