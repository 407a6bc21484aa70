// Auctions pending deletion (domain/0031-auction-soft-delete.sql): who deleted each and when, when it will be
// purged, and two repairs: Undo (restore_deleted_auction) and Purge now after a confirmation
// (purge_deleted_auction_now: the server's purge job removes it, rows and objects, within moments).
import { countedTable, h, markReady, notice, when } from '../dom.js';
import { rest } from '../session.js';

interface DeletedRow {
  id: string;
  name: string;
  slug: string;
  deleted_at: string;
  deleted_by: string | null;
  deleted_by_name: string | null;
  purge_after: string;
  member_count: number;
}

interface Failure {
  message: string;
  hint?: string | null;
}

const failureText = (e: Failure) => (e.hint ? `${e.message} (${e.hint})` : e.message);

function button(text: string, label: string, action: () => Promise<void>, danger = false): HTMLElement {
  const element = h('button', { type: 'button', 'aria-label': label, class: danger ? 'danger' : undefined }, text);
  element.addEventListener('click', () => {
    element.setAttribute('disabled', '');
    void action().finally(() => element.removeAttribute('disabled'));
  });
  return element;
}

export async function renderDeletedAuctions(main: HTMLElement, _params: URLSearchParams, outcome?: HTMLElement) {
  const client = await rest();
  const { data, error } = await client.rpc('list_deleted_auctions');
  if (error) throw new Error(error.message);
  const rows = (data ?? []) as DeletedRow[];
  const feedback = h('div', { 'aria-live': 'polite' }, outcome);
  const act = async (done: string, fn: string, id: string) => {
    const res = await client.rpc(fn, { p_auction_id: id });
    if (res.error) feedback.replaceChildren(notice(failureText(res.error), 'alert'));
    else await renderDeletedAuctions(main, _params, notice(done));
  };
  const purgeControl = (a: DeletedRow): HTMLElement => {
    const box = h('span', { class: 'confirm' });
    const ask = button('Purge now', `Purge ${a.name} now`, async () => {
      box.replaceChildren(
        h('span', {}, `Purge ${a.name} and all its data now? This cannot be undone.`),
        button(
          'Confirm',
          `Confirm purge of ${a.name}`,
          () =>
            act(
              `Purge of ${a.name} started: the server removes its data and objects.`,
              'purge_deleted_auction_now',
              a.id,
            ),
          true,
        ),
        button('Cancel', `Cancel purge of ${a.name}`, async () => {
          box.replaceChildren(ask);
          ask.focus();
        }),
      );
      (box.querySelector('button') as HTMLElement | null)?.focus();
    });
    box.append(ask);
    return box;
  };
  main.replaceChildren(
    h('h1', {}, 'Pending deletion'),
    h(
      'p',
      {},
      'Auctions their owners deleted: hidden from everyone until undone, purged with their objects after the grace period.',
    ),
    feedback,
    countedTable(
      rows,
      'auction pending deletion',
      'No auction is pending deletion.',
      ['Name', 'Slug', 'Deleted by', 'Deleted', 'Purge on', 'Members', 'Actions'],
      (a) => [
        a.name,
        a.slug,
        a.deleted_by_name ?? (a.deleted_by ? a.deleted_by : 'the service role'),
        when(a.deleted_at),
        when(a.purge_after),
        a.member_count,
        h(
          'span',
          {},
          button('Undo', `Undo the deletion of ${a.name}`, () =>
            act(`${a.name} restored: its members see it again.`, 'restore_deleted_auction', a.id),
          ),
          ' ',
          purgeControl(a),
        ),
      ],
    ),
  );
  markReady('deleted-auctions');
}
