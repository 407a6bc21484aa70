// Sends /rest/v1 reads to read replicas: GET and HEAD (table reads and RPCs, which the engine runs in a READ ONLY
// transaction) go to the next healthy replica unless the client asks to read its own writes; everything else stays
// on the primary. A read that cannot reach its replica is answered from the primary. See docs/scaling.md.
import type { ReplicaSet } from '@auction-ops/database';
import { type EngineRequest, type EngineResponse, normalizeHeaders, type RestEngine } from '@auction-ops/rest-engine';

/** The preference (RFC 7240 `Prefer` token) that keeps a read on the primary. */
const READ_YOUR_WRITES = 'read-your-writes';

/**
 * SQLSTATEs and engine codes of a replica that cannot serve: no connection (PGRST000, class 08), shut down or still
 * starting (57P01-57P03), out of connections (53300).
 */
const UNREACHABLE = /^(PGRST000|08...|57P0[123]|53300)$/;
/** A read cancelled by a conflict with WAL replay: the replica is fine, this one read is retried on the primary. */
const RECOVERY_CONFLICT = '40001';

/**
 * The `Prefer` header without the read-your-writes token, and whether it was there. The engine never sees the
 * token: it is a routing choice, and `handling=strict` would refuse a preference the engine does not know.
 */
export function takeReadYourWrites(prefer: string | undefined): { prefer: string | undefined; primary: boolean } {
  if (prefer === undefined || !prefer.toLowerCase().includes(READ_YOUR_WRITES)) return { prefer, primary: false };
  const items = prefer
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const rest = items.filter((p) => p.toLowerCase() !== READ_YOUR_WRITES);
  if (rest.length === items.length) return { prefer, primary: false };
  return { prefer: rest.length > 0 ? rest.join(', ') : undefined, primary: true };
}

/** Says that the read ran on the primary, beside the engine's own applied preferences (RFC 7240). */
function applied(res: EngineResponse): EngineResponse {
  const before = res.headers['preference-applied'];
  res.headers['preference-applied'] = before ? `${before}, ${READ_YOUR_WRITES}` : READ_YOUR_WRITES;
  return res;
}

/**
 * The engine with its reads routed to `replicas`. Without replicas every request runs on the primary, and the
 * preference is still taken off, so that a client sending it gets the same answer with or without replicas.
 */
export function withReadReplicas(engine: RestEngine, replicas: ReplicaSet): RestEngine {
  const handle = async (req: EngineRequest): Promise<EngineResponse> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return engine.handle(req);
    const headers = normalizeHeaders(req.headers);
    const { prefer, primary } = takeReadYourWrites(headers.prefer);
    const request = primary ? { ...req, headers: { ...headers, prefer } } : req;
    if (primary) return applied(await engine.handle(request));
    const sql = replicas.reader();
    if (!replicas.isReplica(sql)) return engine.handle(request);
    const res = await engine.handle({ ...request, sql });
    const code = res.errorCode;
    if (code === undefined) return res;
    if (UNREACHABLE.test(code)) replicas.markDown(sql, code);
    else if (code !== RECOVERY_CONFLICT) return res;
    // A read-only transaction: running it again on the primary changes nothing but where it is read.
    return engine.handle(request);
  };
  return {
    handle,
    reloadSchema: () => engine.reloadSchema(),
    close: () => engine.close(),
    get schemaCache() {
      return engine.schemaCache;
    },
  };
}
