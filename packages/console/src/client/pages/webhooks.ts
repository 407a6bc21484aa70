// Webhook endpoints of every auction (when and why a disabled one was disabled), and one endpoint's repairs
// (re-enable, edit URL and events, a test delivery, replay every failed delivery) and its delivery log (event,
// attempts, status, the last response's excerpt, next attempt) with Retry now and Replay. The repairs are in
// webhook-repairs.ts; after each one the page shows its outcome and reads everything again.
import { countedTable, dataTable, h, markReady, notice, when } from '../dom.js';
import { rest } from '../session.js';
import {
  editEndpoint,
  type Outcome,
  parseEvents,
  reEnable,
  replay,
  replayAllFailed,
  retryNow,
  sendTest,
} from './webhook-repairs.js';

interface EndpointRow {
  id: string;
  url: string;
  events: string[];
  is_active: boolean;
  consecutive_failures: number;
  disabled_at: string | null;
  disabled_reason: string | null;
  auctions: { name: string } | null;
}

interface DeliveryRow {
  id: string;
  event_type: string;
  status: string;
  is_test: boolean;
  attempt_count: number;
  next_attempt_at: string;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  webhook_delivery_attempts: { attempt: number; response_body: string | null; error_message: string | null }[];
}

const EXCERPT = 120;

function excerpt(d: DeliveryRow): string {
  const last = [...d.webhook_delivery_attempts].sort((a, b) => b.attempt - a.attempt)[0];
  const text = last?.response_body ?? last?.error_message ?? d.last_error ?? '';
  const code = d.last_status_code ? `${d.last_status_code} ` : '';
  return `${code}${text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text}` || '—';
}

function activeText(e: EndpointRow): string {
  if (e.is_active) return 'yes';
  return `no: disabled ${when(e.disabled_at)} (${e.disabled_reason ?? 'no reason recorded'})`;
}

function button(label: string, onclick: () => void): HTMLElement {
  return h('button', { type: 'button', onclick: onclick as EventListener }, label);
}

/** The page's state: the endpoint whose log is open (also in the hash, so a reload keeps it). */
interface View {
  feedback: HTMLElement;
  list: HTMLElement;
  panel: HTMLElement;
  selected: string | null;
}

/**
 * Runs a repair, reads the page's data again, then shows the outcome (done or the server's error): only once the
 * page is redrawn, so what the outcome describes is on screen and a form is not replaced under the operator's typing.
 */
async function act(view: View, repair: () => Promise<Outcome>): Promise<void> {
  view.feedback.replaceChildren(notice('Working…'));
  let result: Outcome;
  try {
    result = await repair();
  } catch (error) {
    result = { ok: false, text: (error as Error).message };
  }
  let reread: HTMLElement | null = null;
  try {
    await draw(view);
  } catch (error) {
    reread = notice(`Could not read the endpoints again: ${(error as Error).message}`, 'alert');
  }
  view.feedback.replaceChildren(notice(result.text, result.ok ? 'status' : 'alert'), ...(reread ? [reread] : []));
  view.feedback.scrollIntoView({ block: 'nearest' });
}

function editForm(view: View, e: EndpointRow): HTMLElement {
  // type=text, not url: the server's validation (the same trigger /rest/v1 writes go through) is the judge, and its
  // message is what the operator should see.
  const url = h('input', { id: 'endpoint-url', name: 'url', value: e.url, inputmode: 'url' }) as HTMLInputElement;
  const events = h('input', { id: 'endpoint-events', name: 'events', value: e.events.join(', ') }) as HTMLInputElement;
  return h(
    'form',
    {
      'aria-label': `Edit ${e.url}`,
      class: 'endpoint-edit',
      onsubmit: ((event: Event) => {
        event.preventDefault();
        void act(view, () => editEndpoint(e.id, url.value.trim(), parseEvents(events.value)));
      }) as EventListener,
    },
    h('label', { for: 'endpoint-url' }, 'URL'),
    url,
    h('label', { for: 'endpoint-events' }, 'Events (comma-separated)'),
    events,
    h('button', { type: 'submit' }, 'Save changes'),
  );
}

async function endpointPanel(view: View, e: EndpointRow): Promise<HTMLElement> {
  const { data, error } = await (await rest())
    .from('webhook_deliveries')
    .select(
      'id, event_type, status, is_test, attempt_count, next_attempt_at, last_status_code, last_error, created_at, ' +
        'webhook_delivery_attempts(attempt, response_body, error_message)',
    )
    .eq('endpoint_id', e.id)
    .order('created_at', { ascending: false })
    .limit(100);
  if (error) throw new Error(error.message);
  const deliveries = (data ?? []) as unknown as DeliveryRow[];
  const testEvent = e.events[0];
  return h(
    'section',
    { 'aria-label': `Endpoint ${e.url}` },
    h('h2', {}, e.url),
    h(
      'dl',
      {},
      h('dt', {}, 'Auction'),
      h('dd', {}, e.auctions?.name ?? '—'),
      h('dt', {}, 'Active'),
      h('dd', {}, e.is_active ? 'yes' : 'no'),
      h('dt', {}, 'Disabled at'),
      h('dd', {}, when(e.disabled_at)),
      h('dt', {}, 'Why'),
      h('dd', {}, e.is_active ? '—' : (e.disabled_reason ?? 'no reason recorded')),
      h('dt', {}, 'Failures in a row'),
      h('dd', {}, String(e.consecutive_failures)),
    ),
    h(
      'div',
      { class: 'actions endpoint-actions' },
      e.is_active ? null : button(`Re-enable ${e.url}`, () => void act(view, () => reEnable(e.id, e.url))),
      testEvent
        ? button(`Send a test ${testEvent} delivery`, () => void act(view, () => sendTest(e.id, testEvent)))
        : null,
      button(`Replay every failed delivery to ${e.url}`, () => void act(view, () => replayAllFailed(e.id, e.url))),
    ),
    editForm(view, e),
    deliveries.length === 0
      ? notice(`No deliveries to ${e.url} yet.`)
      : dataTable(
          `Deliveries to ${e.url}`,
          // The action first, so it stays on screen at a phone's width while the rest of the row scrolls.
          ['Action', 'Created', 'Kind', 'Event', 'Attempts', 'Status', 'Response', 'Next attempt'],
          deliveries.map((d) => [
            d.status === 'queued'
              ? button(`Retry ${d.event_type} delivery now`, () => void act(view, () => retryNow(d.id)))
              : button(`Replay ${d.event_type} delivery`, () => void act(view, () => replay(d.id))),
            when(d.created_at),
            d.is_test ? 'test' : 'event',
            d.event_type,
            d.attempt_count,
            d.status,
            excerpt(d),
            d.status === 'queued' ? when(d.next_attempt_at) : '—',
          ]),
        ),
  );
}

function select(view: View, id: string): void {
  view.selected = id;
  // replaceState, not a hash assignment: the page stays as it is (no hashchange), and a reload opens the same log.
  history.replaceState(null, '', `#/webhooks?endpoint=${encodeURIComponent(id)}`);
  view.feedback.replaceChildren();
  void draw(view);
}

async function draw(view: View): Promise<void> {
  const { data, error } = await (await rest())
    .from('webhook_endpoints')
    .select('id, url, events, is_active, consecutive_failures, disabled_at, disabled_reason, auctions(name)')
    .order('created_at', { ascending: false })
    .limit(200);
  if (error) throw new Error(error.message);
  const endpoints = (data ?? []) as unknown as EndpointRow[];
  const selected = endpoints.find((e) => e.id === view.selected);
  const panel = selected ? await endpointPanel(view, selected) : null;
  view.list.replaceChildren(
    countedTable(
      endpoints,
      'endpoint',
      'No webhook endpoints.',
      ['Deliveries', 'Auction', 'URL', 'Events', 'Active', 'Failures in a row'],
      (e) => [
        button(`Deliveries to ${e.url}`, () => select(view, e.id)),
        e.auctions?.name ?? '—',
        e.url,
        e.events.join(', '),
        activeText(e),
        e.consecutive_failures,
      ],
    ),
  );
  view.panel.replaceChildren(...(panel ? [panel] : []));
}

export async function renderWebhooks(main: HTMLElement, params: URLSearchParams): Promise<void> {
  const view: View = {
    feedback: h('div', { class: 'feedback', 'aria-live': 'polite' }),
    list: h('div', {}),
    panel: h('div', {}),
    selected: params.get('endpoint'),
  };
  main.replaceChildren(h('h1', {}, 'Webhooks'), view.list, view.feedback, view.panel);
  await draw(view);
  markReady('webhooks');
}
