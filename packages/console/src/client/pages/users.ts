// Users: search by e-mail or name (admin_search_users), ban and unban (admin_set_user_banned), a password-reset
// e-mail (/auth/v1/recover, as the apps send it), and a user's sessions (admin_user_sessions).
import { dataTable, h, markReady, notice, searchForm, when } from '../dom.js';
import { auth, rest } from '../session.js';

interface UserRow {
  id: string;
  email: string | null;
  full_name: string | null;
  banned_until: string | null;
  last_sign_in_at: string | null;
  session_count: number;
}

interface SessionRow {
  id: string;
  aal: string;
  user_agent: string | null;
  ip: string | null;
  created_at: string;
  refreshed_at: string | null;
}

const isBanned = (u: UserRow) => u.banned_until !== null && new Date(u.banned_until) > new Date();

/** A short visible label; the accessible name says whom the action is for. */
function button(text: string, label: string, action: () => Promise<void>): HTMLElement {
  return h('button', { type: 'button', 'aria-label': label, onclick: (() => void action()) as EventListener }, text);
}

async function setBanned(user: UserRow, banned: boolean) {
  return (await rest()).rpc('admin_set_user_banned', { p_user_id: user.id, p_banned: banned });
}

async function sessionsOf(user: UserRow, into: HTMLElement): Promise<void> {
  const { data, error } = await (await rest()).rpc('admin_user_sessions', { p_user_id: user.id });
  if (error) throw new Error(error.message);
  const rows = (data ?? []) as SessionRow[];
  into.replaceChildren(
    rows.length === 0
      ? notice(`${user.email} has no open sessions.`)
      : dataTable(
          `Sessions of ${user.email}`,
          ['Opened', 'Last refreshed', 'Level', 'Address', 'Client'],
          rows.map((s) => [when(s.created_at), when(s.refreshed_at), s.aal, s.ip ?? '—', s.user_agent ?? '—']),
        ),
  );
}

/** `outcome` is the notice of the action that led to this rendering. */
export async function renderUsers(main: HTMLElement, params: URLSearchParams, outcome?: HTMLElement): Promise<void> {
  const query = params.get('q') ?? '';
  const { data, error } = await (await rest()).rpc('admin_search_users', { p_query: query, p_limit: 100 });
  if (error) throw new Error(error.message);
  const users = (data ?? []) as UserRow[];
  const feedback = h('div', { 'aria-live': 'polite' }, outcome);
  const details = h('section', { 'aria-label': 'User details' });
  const act = async (done: string, work: () => PromiseLike<{ error: { message: string } | null }>) => {
    const { error } = await work();
    if (error) feedback.replaceChildren(notice(error.message, 'alert'));
    else await renderUsers(main, params, notice(done));
  };
  const rows = users.map((u) => [
    u.email ?? '—',
    u.full_name ?? '—',
    when(u.last_sign_in_at),
    isBanned(u) ? 'Banned' : 'Active',
    u.session_count,
    h(
      'div',
      { class: 'actions' },
      isBanned(u)
        ? button('Unban', `Unban ${u.email}`, () => act(`${u.email} unbanned.`, () => setBanned(u, false)))
        : button('Ban', `Ban ${u.email}`, () =>
            act(`${u.email} banned; their sessions ended.`, () => setBanned(u, true)),
          ),
      u.email
        ? button('Reset password', `Send password reset to ${u.email}`, async () => {
            const { error } = await auth.resetPasswordForEmail(u.email as string);
            feedback.replaceChildren(
              error ? notice(error.message, 'alert') : notice(`Password-reset e-mail sent to ${u.email}.`),
            );
          })
        : null,
      button('Sessions', `Sessions of ${u.email}`, () => sessionsOf(u, details)),
    ),
  ]);
  main.replaceChildren(
    h('h1', {}, 'Users'),
    searchForm('users', 'Search by e-mail or name', query),
    feedback,
    dataTable(
      `${users.length} user${users.length === 1 ? '' : 's'}${query ? ` matching “${query}”` : ''}`,
      ['E-mail', 'Name', 'Last sign-in', 'Status', 'Sessions', 'Actions'],
      rows,
    ),
    details,
  );
  markReady('users');
}
