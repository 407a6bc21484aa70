export { storageMigrations } from './migrations.js';
