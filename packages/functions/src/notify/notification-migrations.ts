// The `notifications` migration set: push jobs, the push outbox, overdue notices (runs after the domain's).
import { fileURLToPath } from 'node:url';

export const notificationMigrations = {
  name: 'notifications',
  dir: fileURLToPath(new URL('../../migrations/notifications', import.meta.url)),
  dependsOn: ['domain'],
} as const;
