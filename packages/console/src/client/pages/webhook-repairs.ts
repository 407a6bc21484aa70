// The repairs the Webhooks page offers, each one public interface under row security (no back door): re-enable,
// edit URL and events (the table's own validation trigger judges them), retry a queued delivery now, replay one or
// every failed delivery, and a test delivery. Each returns the outcome to show: done, or the server's message and hint.
import { rest } from '../session.js';

export interface Outcome {
  ok: boolean;
  text: string;
}

interface ServerError {
  message: string;
  hint?: string | null;
  code?: string;
}

/** The server's message with its hint (a refusal's hint says how to get past it: "set is_active to true first"). */
function serverMessage(error: ServerError): string {
  return error.hint ? `${error.message}. Hint: ${error.hint}` : error.message;
}

function outcome(error: ServerError | null, done: string): Outcome {
  return error ? { ok: false, text: serverMessage(error) } : { ok: true, text: done };
}

/** An update of one endpoint the policies must let through: no row back means it was not changed. */
async function updateEndpoint(id: string, values: Record<string, unknown>, done: string): Promise<Outcome> {
  const { data, error } = await (await rest()).from('webhook_endpoints').update(values).eq('id', id).select('id');
  if (!error && (data ?? []).length === 0)
    return { ok: false, text: 'Not changed: no such endpoint is yours to manage.' };
  return outcome(error, done);
}

export function reEnable(id: string, url: string): Promise<Outcome> {
  return updateEndpoint(id, { is_active: true }, `${url} is active again; its failure count is back to 0.`);
}

/** Events as typed: comma- or space-separated names; the server checks them against the event catalogue. */
export function parseEvents(text: string): string[] {
  return text.split(/[\s,]+/).filter((name) => name !== '');
}

export function editEndpoint(id: string, url: string, events: string[]): Promise<Outcome> {
  return updateEndpoint(id, { url, events }, `Saved: ${url}, events ${events.join(', ')}.`);
}

export async function retryNow(deliveryId: string): Promise<Outcome> {
  const { error } = await (await rest()).rpc('retry_webhook_delivery_now', { delivery_id: deliveryId });
  return outcome(error, `Delivery ${deliveryId} is due now: the dispatcher sends it at once.`);
}

export async function replay(deliveryId: string): Promise<Outcome> {
  const { error } = await (await rest()).rpc('replay_webhook_delivery', { delivery_id: deliveryId });
  return outcome(error, `Delivery ${deliveryId} queued again.`);
}

export async function replayAllFailed(endpointId: string, url: string): Promise<Outcome> {
  // Since the epoch: every failed delivery the log still holds (it keeps WEBHOOK_LOG_RETENTION_DAYS).
  const { data, error } = await (await rest()).rpc('replay_failed_webhook_deliveries', {
    endpoint_id: endpointId,
    since: '1970-01-01T00:00:00Z',
  });
  const replayed = (data as { replayed?: number } | null)?.replayed ?? 0;
  return outcome(error, `${replayed} failed deliver${replayed === 1 ? 'y' : 'ies'} to ${url} queued again.`);
}

export async function sendTest(endpointId: string, eventType: string): Promise<Outcome> {
  const { data, error } = await (await rest()).rpc('test_webhook', { endpoint_id: endpointId, event_type: eventType });
  const id = (data as { delivery_id?: string } | null)?.delivery_id ?? '';
  return outcome(error, `Test ${eventType} delivery ${id} queued.`);
}
