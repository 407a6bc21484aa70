// A stranger's server: plain JavaScript over the installed package, as its README shows.
import { createServer } from 'node:http';
import { createJwtAuthenticator, createNodeHandler, createRestEngine } from '@auction-ops/rest-engine';
import postgres from 'postgres';

const sql = postgres(process.env.DB_URI);
const engine = await createRestEngine({ sql, schemas: ['api'], anonRole: 'web_anon' });
const authenticate = createJwtAuthenticator({ secret: process.env.JWT_SECRET, anonRole: 'web_anon' });
const server = createServer(createNodeHandler(engine, { basePath: '/rest/v1', authenticate }));
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}/rest/v1`));
process.on('SIGTERM', () => server.close(() => engine.close().then(() => sql.end())));
