// TypeScript users: the package's types resolve under node16, bundler and node10 resolution.
import { createFetchHandler, createRestEngine, type EngineResponse, type RestEngine } from '@auction-ops/rest-engine';
import postgres from 'postgres';

export async function start(url: string): Promise<(request: Request) => Promise<Response>> {
  const engine: RestEngine = await createRestEngine({ sql: postgres(url), schemas: ['api'] });
  const answer: EngineResponse = await engine.handle({ method: 'GET', path: '/todos' });
  void answer.status;
  return createFetchHandler(engine, { basePath: '/rest/v1' });
}
