// The admin console's public surface: the Hono app the server mounts at /console.
export { consoleRoutes, type ConsoleOptions } from './console-routes.js';
export type { ConsoleAccess, ServerStatus } from './status-route.js';
