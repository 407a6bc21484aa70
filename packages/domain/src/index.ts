export { domainMigrations } from './migrations.js';
