// Webhook endpoints of every auction, and one endpoint's delivery log (event, attempts, status, the last response's
// excerpt, next attempt) with Replay (replay_webhook_delivery, the RPC the apps use).
import { countedTable, dataTable, h, markReady, notice, when } from '../dom.js';
import { rest } from '../session.js';

interface EndpointRow {
  id: string;
  url: string;
  events: string[];
  is_active: boolean;
  consecutive_failures: number;
  auctions: { name: string } | null;
}

interface DeliveryRow {
  id: string;
  event_type: string;
  status: string;
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

async function deliveriesOf(endpoint: EndpointRow, into: HTMLElement, outcome?: HTMLElement): Promise<void> {
  const { data, error } = await (await rest())
    .from('webhook_deliveries')
    .select(
      'id, event_type, status, attempt_count, next_attempt_at, last_status_code, last_error, created_at, ' +
        'webhook_delivery_attempts(attempt, response_body, error_message)',
    )
    .eq('endpoint_id', endpoint.id)
    .order('created_at', { ascending: false })
    .limit(100);
  if (error) throw new Error(error.message);
  const deliveries = (data ?? []) as unknown as DeliveryRow[];
  const replay = async (d: DeliveryRow) => {
    const { error } = await (await rest()).rpc('replay_webhook_delivery', { delivery_id: d.id });
    await deliveriesOf(
      endpoint,
      into,
      notice(error ? error.message : `Delivery ${d.id} queued again.`, error ? 'alert' : 'status'),
    );
  };
  into.replaceChildren(
    h('div', { 'aria-live': 'polite' }, outcome),
    deliveries.length === 0
      ? notice(`No deliveries to ${endpoint.url} yet.`)
      : dataTable(
          `Deliveries to ${endpoint.url}`,
          ['Created', 'Event', 'Attempts', 'Status', 'Response', 'Next attempt', 'Replay'],
          deliveries.map((d) => [
            when(d.created_at),
            d.event_type,
            d.attempt_count,
            d.status,
            excerpt(d),
            d.status === 'queued' ? when(d.next_attempt_at) : '—',
            d.status === 'queued'
              ? null
              : h(
                  'button',
                  { type: 'button', onclick: (() => void replay(d)) as EventListener },
                  `Replay ${d.event_type} delivery`,
                ),
          ]),
        ),
  );
}

export async function renderWebhooks(main: HTMLElement): Promise<void> {
  const { data, error } = await (await rest())
    .from('webhook_endpoints')
    .select('id, url, events, is_active, consecutive_failures, auctions(name)')
    .order('created_at', { ascending: false })
    .limit(200);
  if (error) throw new Error(error.message);
  const endpoints = (data ?? []) as unknown as EndpointRow[];
  const log = h('section', { 'aria-label': 'Delivery log' });
  main.replaceChildren(
    h('h1', {}, 'Webhooks'),
    countedTable(
      endpoints,
      'endpoint',
      'No webhook endpoints.',
      ['Auction', 'URL', 'Events', 'Active', 'Failures in a row', 'Deliveries'],
      (e) => [
        e.auctions?.name ?? '—',
        e.url,
        e.events.join(', '),
        e.is_active ? 'yes' : 'no',
        e.consecutive_failures,
        h(
          'button',
          { type: 'button', onclick: (() => void deliveriesOf(e, log)) as EventListener },
          `Deliveries to ${e.url}`,
        ),
      ],
    ),
    log,
  );
  markReady('webhooks');
}
