// The command's server: rest-engine on node:http, configured as PostgREST. The schema cache reloads on
// `NOTIFY pgrst` and on SIGUSR1; SIGTERM and SIGINT stop taking connections, let requests in flight finish, then
// close the database pool.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import { createNodeHandler } from '../adapters/node-handler.js';
import type { Authenticate } from '../adapters/adapter-options.js';
import { createJwtAuthenticator } from '../auth/jwt-authenticator.js';
import { createRestEngine, type RestEngine } from '../engine.js';
import { RestError } from '../errors.js';
import { presetHeaders } from './cors.js';
import type { CommandConfig } from './postgrest-config.js';

interface RunningCommand {
  readonly url: string;
  readonly engine: RestEngine;
  close(): Promise<void>;
}

// Without a JWT secret a token cannot be verified: PostgREST answers PGRST300.
const noSecret: (anonRole: string | null) => Authenticate = (anonRole) => async (headers) => {
  if (headers.authorization && /^bearer\s+\S/i.test(headers.authorization))
    throw new RestError(500, 'PGRST300', 'Server lacks JWT secret');
  if (anonRole === null)
    throw new RestError(401, 'PGRST302', 'Anonymous access is disabled', { headers: { 'www-authenticate': 'Bearer' } });
  return { role: anonRole };
};

export async function serve(config: CommandConfig): Promise<RunningCommand> {
  const sql = postgres(config.dbUri, { max: config.dbPool, onnotice: () => {} });
  let engine: RestEngine;
  try {
    engine = await createRestEngine({
      sql,
      schemas: config.dbSchemas,
      anonRole: config.dbAnonRole ?? undefined,
      checkRoles: config.dbAnonRole !== null,
      maxRows: config.dbMaxRows ?? undefined,
      extraSearchPath: config.dbExtraSearchPath,
      preRequest: config.dbPreRequest ?? undefined,
      planEnabled: config.dbPlanEnabled,
      aggregatesEnabled: config.dbAggregatesEnabled,
      txEnd: config.dbTxEnd,
      poolTimeoutMs: config.dbPoolAcquisitionTimeoutSeconds * 1000,
      listen: config.dbChannelEnabled,
      // PostgREST lets PATCH and DELETE run without filters.
      allowUnfilteredWrites: true,
      clientErrorVerbosity: config.clientErrorVerbosity,
      // As PostgREST: request.headers shows every header but the cookies, which are in request.cookies.
      hiddenHeaders: ['cookie'],
      requestCookies: true,
      appSettings: config.appSettings,
    });
  } catch (e) {
    await sql.end({ timeout: 1 });
    throw e;
  }
  const authenticate = config.jwtSecret
    ? createJwtAuthenticator({
        secret: config.jwtSecret,
        secretIsBase64: config.jwtSecretIsBase64,
        audience: config.jwtAud ?? undefined,
        roleClaimKey: config.jwtRoleClaimKey,
        anonRole: config.dbAnonRole,
      })
    : noSecret(config.dbAnonRole);
  const handle = createNodeHandler(engine, { authenticate });
  const server: Server = createServer((req, res) => {
    const method = req.method ?? 'GET';
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v.join(', ') : v;
    };
    const preset = presetHeaders(method, header, config);
    if (preset.preflight) {
      res.writeHead(200, { ...preset.headers, 'content-length': '0' });
      res.end();
      return;
    }
    for (const [name, value] of Object.entries(preset.headers)) res.setHeader(name, value);
    if (config.openapiMode === 'disabled' && (req.url === '/' || req.url?.startsWith('/?'))) {
      const body = JSON.stringify({
        code: 'PGRST126',
        details: null,
        hint: null,
        message: 'Root endpoint metadata is disabled',
      });
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) });
      res.end(body);
      return;
    }
    void handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.serverPort, config.serverHost, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    engine,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await engine.close();
      await sql.end({ timeout: 5 });
    },
  };
}
