// Users: search by e-mail or name (admin_search_users), and repairs of an account: ban and unban after a
// confirmation (admin_set_user_banned), mail a reset link (/auth/v1/recover) or the sign-up link again to an invited
// user (/auth/v1/resend), confirm the address (admin_confirm_user_email), end one or all sessions
// (admin_revoke_user_sessions) and remove a second factor (admin_delete_user_factor). Each action says what it did
// or shows the server's error with its hint.
import { dataTable, h, markReady, notice, searchForm, when } from '../dom.js';
import { auth, rest } from '../session.js';

interface UserRow {
  id: string;
  email: string | null;
  full_name: string | null;
  banned_until: string | null;
  last_sign_in_at: string | null;
  session_count: number;
  email_confirmed_at: string | null;
  invited_at: string | null;
  factor_count: number;
}

interface SessionRow {
  id: string;
  aal: string;
  user_agent: string | null;
  ip: string | null;
  created_at: string;
  refreshed_at: string | null;
}

interface FactorRow {
  id: string;
  friendly_name: string | null;
  factor_type: string;
  status: string;
  created_at: string;
}

/** What an RPC or auth-js call answers when it fails; PostgREST adds the hint Postgres gave. */
interface Failure {
  message: string;
  hint?: string | null;
}

type Outcome = { error: Failure | null };

const isBanned = (u: UserRow) => u.banned_until !== null && new Date(u.banned_until) > new Date();
const nameOf = (u: UserRow) => u.email ?? u.full_name ?? u.id;

function failureText(error: Failure): string {
  return error.hint ? `${error.message} (${error.hint})` : error.message;
}

/** A short visible label; the accessible name says whom the action is for. */
function button(text: string, label: string, action: () => Promise<void>, danger = false): HTMLElement {
  const element = h('button', { type: 'button', 'aria-label': label, class: danger ? 'danger' : undefined }, text);
  element.addEventListener('click', () => {
    element.setAttribute('disabled', '');
    void action().finally(() => element.removeAttribute('disabled'));
  });
  return element;
}

/** Puts a notice into a live region and brings it into view (on a phone the region may be above the fold). */
function report(region: HTMLElement, text: string, kind: 'status' | 'alert' = 'status'): void {
  const line = notice(text, kind);
  region.replaceChildren(line);
  line.scrollIntoView?.({ block: 'nearest' });
}

const rpc = async (fn: string, args: Record<string, unknown>): Promise<Outcome & { data: unknown }> =>
  (await rest()).rpc(fn, args);

/** The user's sessions and second factors, each with the action that ends or removes it. */
async function renderDetails(user: UserRow, into: HTMLElement, outcome?: HTMLElement): Promise<void> {
  const [sessions, factors] = await Promise.all([
    rpc('admin_user_sessions', { p_user_id: user.id }),
    rpc('admin_user_factors', { p_user_id: user.id }),
  ]);
  const failed = sessions.error ?? factors.error;
  if (failed) {
    into.replaceChildren(notice(failureText(failed), 'alert'));
    return;
  }
  const name = nameOf(user);
  const feedback = h('div', { 'aria-live': 'polite' }, outcome);
  const act = async (done: (data: unknown) => string, work: () => Promise<Outcome & { data: unknown }>) => {
    const { data, error } = await work();
    if (error) report(feedback, failureText(error), 'alert');
    else await renderDetails(user, into, notice(done(data)));
  };
  const sessionRows = (sessions.data ?? []) as SessionRow[];
  const factorRows = (factors.data ?? []) as FactorRow[];
  into.replaceChildren(
    h('h2', {}, `Details of ${name}`),
    feedback,
    sessionRows.length === 0
      ? notice(`${name} has no open sessions.`)
      : h(
          'div',
          {},
          dataTable(
            `Sessions of ${name}`,
            ['Opened', 'Last refreshed', 'Level', 'Address', 'Client', 'Actions'],
            sessionRows.map((s) => [
              when(s.created_at),
              when(s.refreshed_at),
              s.aal,
              s.ip ?? '—',
              s.user_agent ?? '—',
              button('Revoke', `Revoke the session of ${name} opened ${when(s.created_at)}`, () =>
                act(
                  () => `Session of ${name} revoked: its refresh token no longer works.`,
                  () => rpc('admin_revoke_user_sessions', { p_user_id: user.id, p_session_id: s.id }),
                ),
              ),
            ]),
          ),
          button(
            'Revoke all sessions',
            `Revoke all sessions of ${name}`,
            () =>
              act(
                (n) => `${n} session${n === 1 ? '' : 's'} of ${name} revoked: their refresh tokens no longer work.`,
                () => rpc('admin_revoke_user_sessions', { p_user_id: user.id }),
              ),
            true,
          ),
        ),
    factorRows.length === 0
      ? // A description, not an outcome: the page's live regions stay for what an action did.
        h('p', { class: 'notice' }, `${name} has no second factors.`)
      : dataTable(
          `Second factors of ${name}`,
          ['Name', 'Type', 'Status', 'Added', 'Actions'],
          factorRows.map((f) => [
            f.friendly_name || '—',
            f.factor_type,
            f.status,
            when(f.created_at),
            button(
              'Remove',
              `Remove factor ${f.friendly_name || f.factor_type} of ${name}`,
              () =>
                act(
                  () =>
                    `Factor ${f.friendly_name || f.factor_type} of ${name} removed; they now sign in with one factor.`,
                  () => rpc('admin_delete_user_factor', { p_user_id: user.id, p_factor_id: f.id }),
                ),
              true,
            ),
          ]),
        ),
  );
}

/** `outcome` is the notice of the action that led to this rendering. */
export async function renderUsers(main: HTMLElement, params: URLSearchParams, outcome?: HTMLElement): Promise<void> {
  const query = params.get('q') ?? '';
  const { data, error } = await rpc('admin_search_users', { p_query: query, p_limit: 100 });
  if (error) throw new Error(failureText(error));
  const users = (data ?? []) as UserRow[];
  const feedback = h('div', { 'aria-live': 'polite' }, outcome);
  const details = h('section', { 'aria-label': 'User details' });
  const act = async (done: string, work: () => Promise<Outcome>) => {
    const { error } = await work();
    if (error) report(feedback, failureText(error), 'alert');
    else await renderUsers(main, params, notice(done));
  };
  /** A mail sent by the auth interface: the list does not change, so only the notice does. */
  const mail = async (done: string, work: () => Promise<Outcome>) => {
    const { error } = await work();
    report(feedback, error ? failureText(error) : done, error ? 'alert' : 'status');
  };
  const banControl = (u: UserRow): HTMLElement => {
    const name = nameOf(u);
    const box = h('span', { class: 'confirm' });
    const ask = button('Ban', `Ban ${name}`, async () => {
      box.replaceChildren(
        h('span', {}, `Ban ${name}?`),
        button(
          'Confirm',
          `Confirm ban of ${name}`,
          () =>
            act(`${name} banned; their sessions ended.`, () =>
              rpc('admin_set_user_banned', { p_user_id: u.id, p_banned: true }),
            ),
          true,
        ),
        button('Cancel', `Cancel ban of ${name}`, async () => {
          box.replaceChildren(ask);
          ask.focus();
        }),
      );
      (box.querySelector('button') as HTMLElement | null)?.focus();
    });
    box.append(ask);
    return box;
  };
  const rows = users.map((u) => {
    const name = nameOf(u);
    const unconfirmed = u.email !== null && u.email_confirmed_at === null;
    return [
      u.email ?? '—',
      u.full_name ?? '—',
      when(u.last_sign_in_at),
      [isBanned(u) ? 'Banned' : 'Active', unconfirmed ? (u.invited_at ? 'invited' : 'unconfirmed') : null]
        .filter(Boolean)
        .join(', '),
      u.session_count,
      u.factor_count,
      h(
        'div',
        { class: 'actions' },
        isBanned(u)
          ? button('Unban', `Unban ${name}`, () =>
              act(`${name} unbanned.`, () => rpc('admin_set_user_banned', { p_user_id: u.id, p_banned: false })),
            )
          : banControl(u),
        u.email
          ? button('Reset password', `Send password reset to ${u.email}`, () =>
              mail(`Password-reset e-mail sent to ${u.email}.`, () => auth.resetPasswordForEmail(u.email as string)),
            )
          : null,
        unconfirmed && u.invited_at
          ? button('Resend invitation', `Resend invitation to ${u.email}`, () =>
              // /invite is the service role's; /resend mails the sign-up link, which confirms and signs in alike.
              mail(`Invitation link sent again to ${u.email}.`, () =>
                auth.resend({ type: 'signup', email: u.email as string }),
              ),
            )
          : null,
        unconfirmed
          ? button('Confirm e-mail', `Confirm e-mail of ${u.email}`, () =>
              act(`${u.email} confirmed; they can sign in with their password.`, () =>
                rpc('admin_confirm_user_email', { p_user_id: u.id }),
              ),
            )
          : null,
        button('Sessions', `Sessions of ${name}`, async () => {
          await renderDetails(u, details);
          details.scrollIntoView?.({ block: 'start' });
        }),
      ),
    ];
  });
  main.replaceChildren(
    h('h1', {}, 'Users'),
    searchForm('users', 'Search by e-mail or name', query),
    feedback,
    dataTable(
      `${users.length} user${users.length === 1 ? '' : 's'}${query ? ` matching “${query}”` : ''}`,
      ['E-mail', 'Name', 'Last sign-in', 'Status', 'Sessions', 'Factors', 'Actions'],
      rows,
    ),
    details,
  );
  markReady('users');
}
