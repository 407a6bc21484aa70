// Public surface of @auction-ops/domain: the migrations and the demo data generator.
export { domainMigrations, domainStorageMigrations, domainRealtimeMigrations } from './migrations.js';
export { seedDemo, type SeedOptions, type SeedResult, type SeededUser } from './seed/demo-seed.js';
