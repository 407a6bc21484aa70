// Mail and push outboxes: the push job queue (state, attempts, next attempt, last error; admin_push_jobs), the
// mails the functions sent (public.email_log: state and error, a /rest/v1 read super admins pass), and the auth
// mail outbox of the development provider (admin_mail_outbox).
import { countedTable, h, markReady, notice, when } from '../dom.js';
import { rest } from '../session.js';

interface PushJobRow {
  kind: string;
  auction_name: string;
  status: string;
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

interface EmailLogRow {
  to_email: string;
  template: string;
  status: string;
  error: string | null;
  created_at: string;
}

interface MailRow {
  to_email: string;
  subject: string;
  template: string | null;
  created_at: string;
}

function section(title: string, ...children: (HTMLElement | null)[]): HTMLElement {
  const id = `section-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return h('section', { 'aria-labelledby': id }, h('h2', { id }, title), ...children);
}

export async function renderOutboxes(main: HTMLElement): Promise<void> {
  const client = await rest();
  const [push, log, mail] = await Promise.all([
    client.rpc('admin_push_jobs', { p_limit: 100 }),
    client
      .from('email_log')
      .select('to_email, template, status, error, created_at')
      .order('created_at', {
        ascending: false,
      })
      .limit(100),
    client.rpc('admin_mail_outbox', { p_limit: 100 }),
  ]);
  const failure = push.error ?? log.error ?? mail.error;
  if (failure) throw new Error(failure.message);
  const jobs = (push.data ?? []) as unknown as PushJobRow[];
  const failed = jobs.filter((j) => j.status === 'failed').length;
  main.replaceChildren(
    h('h1', {}, 'Outboxes'),
    section(
      'Push jobs',
      failed > 0 ? notice(`${failed} push job${failed === 1 ? '' : 's'} failed.`, 'alert') : null,
      countedTable(
        jobs,
        'push job',
        'No push jobs.',
        ['Created', 'Kind', 'Auction', 'State', 'Attempts', 'Next attempt', 'Last error', 'Sent'],
        (j) => [
          when(j.created_at),
          j.kind,
          j.auction_name,
          j.status,
          j.attempts,
          j.status === 'queued' ? when(j.next_attempt_at) : '—',
          j.last_error ?? '—',
          when(j.sent_at),
        ],
      ),
    ),
    section(
      'Mail sent by functions',
      countedTable(
        (log.data ?? []) as unknown as EmailLogRow[],
        'mail',
        'No mail sent by functions.',
        ['Created', 'To', 'Template', 'State', 'Error'],
        (m) => [when(m.created_at), m.to_email, m.template, m.status, m.error ?? '—'],
      ),
    ),
    section(
      'Auth mail outbox',
      countedTable(
        (mail.data ?? []) as unknown as MailRow[],
        'stored mail',
        'The auth mail outbox is empty.',
        ['Stored', 'To', 'Subject', 'Template'],
        (m) => [when(m.created_at), m.to_email, m.subject, m.template ?? '—'],
      ),
    ),
  );
  markReady('outboxes');
}
