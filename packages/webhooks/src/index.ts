export { webhookMigrations } from './migrations.js';
