// What one delivery attempt sends: the event body in its documented field order, signed both ways (the house's
// x-webhook-* headers and the Standard Webhooks webhook-* ones), under this dispatcher's User-Agent.
import type { ClaimedDelivery } from './delivery-store.js';
import type { SendRequest } from './http-sender.js';
import { signRequest } from './signer.js';

export const USER_AGENT = 'auction-ops-Webhook/1.0';

/** The request for an attempt at `d`, signed at the current second: every attempt, a retry too, is signed anew. */
export function deliveryRequest(d: ClaimedDelivery, timeoutMs: number, signal: AbortSignal): SendRequest {
  const p = d.payload;
  // The body's field order (docs/events.md); the stored jsonb does not keep key order.
  const body = JSON.stringify({
    event: p.event,
    timestamp: p.timestamp,
    webhook_id: p.webhook_id,
    auction_id: p.auction_id,
    data: p.data,
  });
  const timestamp = Math.floor(Date.now() / 1000);
  const signatures = signRequest(d.secrets, d.id, timestamp, body);
  return {
    url: d.url,
    body,
    timeoutMs,
    signal,
    headers: {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'x-webhook-id': d.id,
      'x-webhook-timestamp': String(timestamp),
      'x-webhook-event': d.event_type,
      'x-webhook-signature': signatures['x-webhook-signature'],
      'webhook-id': d.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatures['webhook-signature'],
    },
  };
}
