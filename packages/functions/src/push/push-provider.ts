// The push provider interface shared by the Expo client and the development outbox: messages in, one ticket per
// message out (in order), and the provider-level error that a failed request surfaces as.

export type PushPriority = 'default' | 'normal' | 'high';

export interface PushMessage {
  to: string;
  title: string;
  body: string;
  data?: Record<string, unknown>;
  sound?: string | null;
  badge?: number;
  priority?: PushPriority;
  channelId?: string;
}

export interface PushTicket {
  token: string;
  status: 'ok' | 'error';
  id?: string;
  /** Expo's details.error (DeviceNotRegistered, MessageTooBig, ...) or ProviderError when the request failed. */
  error?: string;
  message?: string;
}

export interface PushProvider {
  readonly name: 'expo' | 'outbox';
  /**
   * Sends the messages (any number: the provider chunks them) and returns one ticket per message, in order.
   * A chunk the provider could not take after its retries yields ProviderError tickets for its messages.
   */
  send(messages: readonly PushMessage[]): Promise<PushTicket[]>;
  close?(): Promise<void>;
}

/** Tickets of a chunk whose request failed: the tokens were not accepted and may be sent again. */
export function providerErrorTickets(messages: readonly PushMessage[], message: string): PushTicket[] {
  return messages.map((m) => ({ token: m.to, status: 'error', error: 'ProviderError', message }));
}

/** Splits a list into chunks of at most `size`. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
