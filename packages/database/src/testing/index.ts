// Test support shared by every package: per-file databases from migrated templates.
export { createTestDatabase, type TestDatabase } from './test-database.js';
