// The day benchmark's whole profile in one place: the peak hour of the reference auction group (K = 1), how much
// the hour is compressed, the service levels a run must hold, and the faults of `--faults`. Every rate and count
// below is multiplied by K (subscribers and receivers included); times are of the real (uncompressed) hour unless
// a name says otherwise.

export const profile = {
  /** The hour is played in 3600 / compression seconds; every rate runs `compression` times faster. */
  compression: 20,
  /** The same, for a run with faults: longer, so that each fault has a stretch of normal traffic around it. */
  faultsCompression: 10,

  auctions: 20,
  locationsPerAuction: 10,
  /** Locations operate 06:00-18:00 and want a submission every 30 minutes. */
  operatingHours: { start: '06:00:00', end: '18:00:00' },
  submissionEveryMinutes: 30,
  entriesPerSubmission: 3,
  photoBytes: 2 * 1024 * 1024,

  inspectionsPerAuctionPerHour: 100,
  defectsPerInspection: { min: 0, max: 3 },

  /** Two rock reports per auction per day (12 operating hours), each with facts, 3 causes, 2 actions and the
   * status moves open -> in_progress -> closed plus each action completed. */
  rockReportsPerAuctionPerDay: 2,
  operatingHoursPerDay: 12,
  causesPerReport: 3,
  actionsPerReport: 2,

  staffOnline: 500,
  messagesPerStaffPerHour: 4,
  channelsPerAuction: 5,
  /** One per staff member on their channel's messages (postgres_changes under RLS). */
  messageSubscribers: 500,
  /** Admins and dashboards watching their auction's lot submissions. */
  submissionSubscribers: 50,

  admins: 40,
  /** Each admin refreshes the analytics RPCs and the recent lists every this many seconds. */
  adminRefreshSeconds: 60,

  webhookEndpointsPerAuction: 2,
  webhookEvents: ['submission.created', 'inspection.created', 'message.created'],
  /** Of the receivers' answers: 10% take 25 s, 5% are 500s, the rest 200 at once. */
  receiverSlowShare: 0.1,
  receiverSlowSeconds: 25,
  /** The 25 s shrink with the hour, like the rates: the dispatcher then holds as many slow deliveries at once as in
   * the real hour at this K. Uncompressed, a compression of 20 makes slow receivers 20 times as costly (at K = 1,
   * 48 deliveries/s x 10% x 25 s = 120 at once, past WEBHOOK_CONCURRENCY=64). */
  receiverSlowCompressed: true,
  receiverFailShare: 0.05,

  csvImportsPerHour: 1,
  csvImportBytes: 10 * 1024 * 1024,

  /** A request with no answer after this long counts as a hang. */
  clientTimeoutMs: 30_000,
} as const;

/** The service levels a run must hold (p99 in milliseconds). */
export const serviceLevels = {
  readP99Ms: 100,
  writeP99Ms: 250,
  uploadP99Ms: 1_500,
  realtimeP99Ms: 250,
  webhookFirstAttemptP99Ms: 1_000,
  /** No 5xx at all (a fault run: none outside 503/504 with contract bodies). */
  max5xx: 0,
  /** RSS is flat when the last third's maximum is within this share of the first third's maximum. */
  rssGrowthMax: 0.15,
} as const;

/** K values tried in order until one fails; then the largest good and the first bad are bisected. */
export const kSteps = [1, 2, 5, 10, 20, 30, 50, 75, 100] as const;

/** The faults of `--faults`, each at a share of the run, in this order. */
export const faults = [
  { name: 'postgres-sigkill', at: 0.12 },
  { name: 'worker-sigkill', at: 0.3 },
  { name: 'receiver-down', at: 0.45, seconds: 20 },
  { name: 'network-cut', at: 0.62, seconds: 20 },
  { name: 'disk-full', at: 0.82, seconds: 15 },
] as const;

export type FaultName = (typeof faults)[number]['name'];

/** Which service level a request kind is held to. */
export type RequestClass = 'read' | 'write' | 'upload' | 'import';
