// Data interface (/rest/v1) rate limits: on or off, where counters live, the enterprise tier's limits, which RPCs
// are heavy and what they cost, and how long a caller's tier is cached. Free and pro limits are fixed (docs/limits.md).
import * as v from 'valibot';
import { bool, positiveInt, wholeNumber } from './fields.js';

const rpcNames = v.pipe(
  v.string(),
  v.regex(
    /^\s*([A-Za-z_][A-Za-z0-9_]*\s*(,\s*[A-Za-z_][A-Za-z0-9_]*\s*)*)?$/,
    'must be comma-separated function names',
  ),
);

export const limitsSettings = {
  // A request body that sends nothing for this long while the server waits for it is closed (slow-drip uploads).
  BODY_IDLE_TIMEOUT_MS: v.optional(positiveInt, '30000'),
  // An idle keep-alive connection is closed after this long. Longer than the idle timeouts of the proxies and load
  // balancers put in front (60 s is common), so that they never send a request on a connection this server is
  // closing, which the client sees as a reset (Node's own 5 s made even a short stall of a client lose requests).
  HTTP_KEEP_ALIVE_SECONDS: v.optional(positiveInt, '75'),
  // The JSON body of a function (import-csv's upload has IMPORT_MAX_BYTES): past it 413 VALIDATION_ERROR.
  FUNCTION_MAX_BODY_BYTES: v.optional(positiveInt, String(1024 * 1024)),
  // Free space (MiB) kept on DATA_DIR's filesystem for PostgreSQL's WAL: under it uploads and CSV imports answer 507
  // and local backups are skipped. Unset: the larger of 1 GiB and 5 % of the filesystem; 0 turns the floor off.
  DISK_FREE_FLOOR_MB: v.optional(wholeNumber),
  RATE_LIMITS_ENABLED: v.optional(bool, 'true'),
  RATE_LIMITS_STORE: v.optional(v.picklist(['memory', 'postgres'], 'must be memory or postgres'), 'memory'),
  RATE_LIMITS_ENTERPRISE_PER_MINUTE: v.optional(positiveInt, '3000'),
  RATE_LIMITS_ENTERPRISE_PER_HOUR: v.optional(positiveInt, '100000'),
  RATE_LIMITS_HEAVY_RPCS: v.optional(
    rpcNames,
    'get_location_stats,get_all_locations_stats,get_defect_trends,get_pending_submissions',
  ),
  RATE_LIMITS_HEAVY_COST: v.optional(positiveInt, '5'),
  RATE_LIMITS_TIER_CACHE_SECONDS: v.optional(positiveInt, '30'),
};
