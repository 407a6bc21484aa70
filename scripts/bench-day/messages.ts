// What the bench's child processes and the orchestrator say to each other over IPC, and the records they keep.

/** One request as a generator saw it. */
export interface RequestRecord {
  /** Epoch ms when it was sent. */
  t: number;
  kind: string;
  ms: number;
  /** HTTP status; 0 when no answer came (reset, refused, or the client timeout: a hang). */
  status: number;
  /** For a non-2xx: whether the body had the contract's error shape for its path family. */
  contract?: boolean;
  detail?: string;
}

/** A write the server acknowledged (2xx), with what the audit needs to find it again. */
export type Ack =
  | { type: 'message'; id: string; auction: string; token: string; channel: string }
  | { type: 'inspection'; id: string; auction: string; token: string }
  | { type: 'report'; id: string; auction: string; token: string }
  | { type: 'submission'; id: string; auction: string; token: string; entries: number }
  | { type: 'defect'; id: string; auction: string }
  | { type: 'fact'; id: string; auction: string }
  | { type: 'cause'; id: string; auction: string }
  | { type: 'action'; id: string; auction: string }
  | { type: 'report-status'; id: string; status: string; at: number }
  | { type: 'action-status'; id: string; status: string; at: number }
  | { type: 'object'; path: string; sha256: string; bytes: number }
  | { type: 'dataset'; id: string; rows: number; seconds: number };

/**
 * A write answered with anything but 2xx (or not answered: status 0), by its client-chosen marker (the message's
 * content, the inspection's VIN, the submission's notes, the report's issue name), for the audit's check that no
 * refused write is stored.
 */
export interface Refusal {
  type: 'message' | 'inspection' | 'submission' | 'report';
  token: string;
  status: number;
  /** The error body's code (SQLSTATE or PGRST), when it had one. */
  code: string | null;
}

export interface RealtimeRecord {
  t: number;
  /** Receipt time minus the change's commit_timestamp. */
  ms: number;
  table: string;
  id: string;
}

export interface ArrivalRecord {
  t: number;
  webhookId: string;
  endpoint: string;
  event: string;
  subject: string;
  /** The event's `timestamp` (when it occurred), epoch ms. */
  occurred: number;
  answered: number;
}

/** The orchestrator to the relay process (relay-process.ts); it answers each but start with `relayed`. */
export type ToRelay = { type: 'start'; dataDir: string } | { type: 'cut' | 'restore' | 'stop'; id: number };

export type FromChild =
  | { type: 'ready' }
  | {
      type: 'started';
      urls?: string[];
      subscribed?: number;
      failed?: number;
      port?: number;
      /** A generator's warm-up: each of its requests' time in ms (not among the hour's records), and its length. */
      warmupMs?: number[];
      warmupTookMs?: number;
    }
  | {
      type: 'records';
      requests?: RequestRecord[];
      acks?: Ack[];
      refusals?: Refusal[];
      realtime?: RealtimeRecord[];
      arrivals?: ArrivalRecord[];
    }
  | { type: 'done' }
  | { type: 'relayed'; id: number }
  | { type: 'log'; line: string };
