// A realtime subscriber process: each subscriber is one WebSocket speaking the protocol as realtime-js does (vsn
// 2.0.0 frames; a join carrying its postgres_changes INSERT binding, table and filter, and the user's access token;
// a heartbeat every 25 s; reconnect and rejoin after realtime-js's pauses), so the server does for it what it does
// for a phone. Each change is timed from its commit_timestamp to its receipt.
//
// Not a supabase-js client per subscriber, as these were until December 2026: its auth client reads the session at
// every heartbeat and each client keeps its own timers, and with 11,000 of them (K = 20) the subscriber processes
// took 14 % of this machine's two cores, which the server then did not have. The clients' own suites hold that
// supabase-js works against the server; this process is load, and the less CPU it takes the more of the machine
// the server is measured with.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type WebSocketType from 'ws';
import { recordBuffer, tell } from './child.js';

const fromServer = createRequire(join(import.meta.dirname, '../../apps/server/package.json'));
// The root package does not depend on ws (the server does).
const WebSocket = fromServer('ws') as typeof WebSocketType;

export interface Subscription {
  token: string;
  table: string;
  filter: string;
}

interface Start {
  type: 'start';
  url: string;
  anonKey: string;
  subscriptions: Subscription[];
}

/** realtime-js's timings (RealtimeClient's and RealtimeChannel's defaults). */
const HEARTBEAT_MS = 25_000;
const JOIN_TIMEOUT_MS = 10_000;
const RETRY_MS = [1_000, 2_000, 5_000, 10_000];
/** How long a subscriber may take to join before the run goes on without it (it may still join later). */
const JOIN_DEADLINE_MS = 60_000;
/** Joins in flight at once in one process, as a crowd of phones would arrive, without a stampede. */
const JOINING_AT_ONCE = 64;

type Frame = [joinRef: string | null, ref: string | null, topic: string, event: string, payload: unknown];
interface ChangePayload {
  data?: { commit_timestamp?: string; record?: { id?: string } };
}
interface ReplyPayload {
  status?: string;
}

const subscribers: Subscriber[] = [];
const buffer = recordBuffer();

process.on('message', (m: Start | { type: 'stop' }) => {
  if (m.type === 'start') void subscribeAll(m);
  else if (m.type === 'stop') stop();
});

tell({ type: 'ready' });

class Subscriber {
  private socket: WebSocketType | undefined;
  private ref = 0;
  private joinRef: string | undefined;
  private joinTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private heartbeatRef: string | undefined;
  private connectTries = 0;
  private joinTries = 0;
  private stopped = false;
  private onFirstJoin: (() => void) | undefined;
  private readonly topic: string;

  constructor(
    private readonly endpoint: string,
    private readonly subscription: Subscription,
    index: number,
  ) {
    this.topic = `realtime:day-${index}`;
  }

  /** Connects and joins; resolves true once the first join is answered ok, false at the deadline. */
  start(): Promise<boolean> {
    return new Promise((resolve) => {
      const deadline = setTimeout(() => resolve(false), JOIN_DEADLINE_MS);
      this.onFirstJoin = () => {
        clearTimeout(deadline);
        resolve(true);
      };
      this.connect();
    });
  }

  stop(): void {
    this.stopped = true;
    this.clearTimers();
    this.socket?.close(1000);
  }

  private connect(): void {
    const socket = new WebSocket(this.endpoint);
    this.socket = socket;
    socket.on('open', () => {
      this.connectTries = 0;
      this.heartbeatTimer = setInterval(() => this.heartbeat(), HEARTBEAT_MS);
      this.join();
    });
    socket.on('message', (data, isBinary) => {
      if (!isBinary) this.received(JSON.parse(data.toString()) as Frame);
    });
    socket.on('error', () => {}); // 'close' follows; the reconnect is there
    socket.on('close', () => {
      this.clearTimers();
      this.heartbeatRef = undefined;
      if (this.stopped || this.socket !== socket) return;
      this.retryTimer = setTimeout(() => this.connect(), RETRY_MS[this.connectTries++] ?? RETRY_MS.at(-1));
    });
  }

  private send(frame: Frame): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(frame));
  }

  private join(): void {
    const ref = String(++this.ref);
    this.joinRef = ref;
    const { table, filter, token } = this.subscription;
    this.send([
      ref,
      ref,
      this.topic,
      'phx_join',
      {
        config: {
          broadcast: { ack: false, self: false },
          presence: { key: '', enabled: false },
          postgres_changes: [{ event: 'INSERT', schema: 'public', table, filter }],
          private: false,
        },
        access_token: token,
      },
    ]);
    clearTimeout(this.joinTimer);
    this.joinTimer = setTimeout(() => this.rejoinLater(), JOIN_TIMEOUT_MS);
  }

  /** A join refused, timed out or errored is tried again after realtime-js's pause, on the same connection. */
  private rejoinLater(): void {
    clearTimeout(this.joinTimer);
    clearTimeout(this.retryTimer);
    if (this.stopped) return;
    this.retryTimer = setTimeout(() => this.join(), RETRY_MS[this.joinTries++] ?? RETRY_MS.at(-1));
  }

  /** A heartbeat still unanswered at the next one means a dead connection: closed, then reconnected. */
  private heartbeat(): void {
    if (this.heartbeatRef !== undefined) {
      this.socket?.terminate();
      return;
    }
    this.heartbeatRef = String(++this.ref);
    this.send([null, this.heartbeatRef, 'phoenix', 'heartbeat', {}]);
  }

  private received([, ref, topic, event, payload]: Frame): void {
    if (topic === 'phoenix') {
      if (event === 'phx_reply' && ref === this.heartbeatRef) this.heartbeatRef = undefined;
      return;
    }
    if (topic !== this.topic) return;
    if (event === 'postgres_changes') {
      const data = (payload as ChangePayload).data;
      const now = Date.now();
      buffer.push('realtime', {
        t: now,
        ms: now - Date.parse(data?.commit_timestamp ?? ''),
        table: this.subscription.table,
        id: String(data?.record?.id),
      });
    } else if (event === 'phx_reply' && ref === this.joinRef) {
      clearTimeout(this.joinTimer);
      if ((payload as ReplyPayload).status !== 'ok') {
        this.rejoinLater();
        return;
      }
      this.joinTries = 0;
      this.onFirstJoin?.();
      this.onFirstJoin = undefined;
    } else if (event === 'phx_error') {
      this.rejoinLater();
    }
    // phx_close: the server ended the channel, and realtime-js does not rejoin a closed one; system: status only.
  }

  private clearTimers(): void {
    clearInterval(this.heartbeatTimer);
    clearTimeout(this.joinTimer);
    clearTimeout(this.retryTimer);
  }
}

async function subscribeAll(start: Start) {
  const url = new URL('/realtime/v1/websocket', start.url.replace(/^http/, 'ws'));
  url.searchParams.set('apikey', start.anonKey);
  url.searchParams.set('vsn', '2.0.0');
  let next = 0;
  let ok = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: JOINING_AT_ONCE }, async () => {
      while (next < start.subscriptions.length) {
        const i = next++;
        const subscriber = new Subscriber(url.href, start.subscriptions[i]!, i);
        subscribers.push(subscriber);
        if (await subscriber.start()) ok++;
        else failed++;
      }
    }),
  );
  tell({ type: 'started', subscribed: ok, failed });
}

function stop() {
  buffer.close();
  for (const s of subscribers) s.stop();
  tell({ type: 'done' });
  setTimeout(() => process.exit(0), 200);
}
