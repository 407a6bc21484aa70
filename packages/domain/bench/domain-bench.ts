// Domain benchmark (`node --import tsx packages/domain/bench/domain-bench.ts`): seeds the demo data at BENCH_SCALE
// (default 10) into a fresh embedded cluster, then times the demo data's reads and RPCs as a team member inside
// request-like transactions (role + JWT claims, as the REST engine runs them). Prints figures; asserts nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { authenticatorUrl, ensureRoles, migrate, startEmbeddedPostgres } from '@auction-ops/database';
import { authMigrations } from '@auction-ops/auth-core';
import { domainMigrations, seedDemo } from '../src/index.js';

const SCALE = Number(process.env.BENCH_SCALE ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);

export async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'auction-ops-bench-domain-'));
  const cluster = await startEmbeddedPostgres({ dir, settings: { fsync: 'off', synchronous_commit: 'off' } });
  const password = randomBytes(12).toString('hex');
  const owner = postgres(cluster.url, { max: 2, onnotice: () => {} });
  const request = postgres(authenticatorUrl(cluster.url, password), { max: 2, onnotice: () => {} });
  try {
    await ensureRoles(cluster.url, password);
    await migrate(cluster.url, [authMigrations, domainMigrations]);
    let t = performance.now();
    const seeded = await seedDemo(owner, { scale: SCALE, hashPassword: async (p) => p });
    console.log(`seed scale ${SCALE}: ${((performance.now() - t) / 1000).toFixed(2)} s`, seeded.counts);
    await owner`analyze`;

    const [member] = await owner`select id from public.users where email = ${seeded.users[2]!.email}`;
    const claims = JSON.stringify({ sub: member!.id, role: 'authenticated' });
    const a = seeded.auctions[0]!.id;
    const [loc] = await owner`select id from public.locations where auction_id = ${a} order by name limit 1`;
    const [ch] = await owner`select id from public.channels where auction_id = ${a} and name = 'general'`;
    const queries: [string, string][] = [
      [
        'recent_submissions auction, limit 25',
        `select * from public.recent_submissions where auction_id = '${a}' order by submitted_at desc limit 25`,
      ],
      [
        'recent_submissions location, 7 days',
        `select * from public.recent_submissions where location_id = '${loc!.id}'
          and submitted_at >= now() - interval '7 days' and submitted_at <= now() order by submitted_at desc limit 50`,
      ],
      [
        'recent_quality_inspections limit 25',
        `select * from public.recent_quality_inspections where auction_id = '${a}' order by submitted_at desc limit 25`,
      ],
      [
        'active_problem_reports',
        `select * from public.active_problem_reports where auction_id = '${a}' and status <> 'closed'
          order by submitted_at desc`,
      ],
      [
        'messages_with_reply_count limit 50',
        `select * from public.messages_with_reply_count where channel_id = '${ch!.id}' and parent_message_id is null
          order by created_at desc limit 50`,
      ],
      [
        'get_location_stats 30 days',
        `select public.get_location_stats('${loc!.id}', now() - interval '30 days', now())`,
      ],
      [
        'get_all_locations_stats 30 days',
        `select * from public.get_all_locations_stats(now() - interval '30 days', now())`,
      ],
      ['get_defect_trends 30 days', `select * from public.get_defect_trends(now() - interval '30 days', now(), null)`],
      ['get_pending_submissions', `select * from public.get_pending_submissions()`],
      ['get_total_unread_count', `select public.get_total_unread_count('${a}')`],
    ];
    for (const [name, q] of queries) {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        t = performance.now();
        await request.begin(async (tx) => {
          await tx`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', ${claims}, true)`;
          await tx.unsafe(q);
        });
        times.push(performance.now() - t);
      }
      times.sort((x, y) => x - y);
      const p = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
      console.log(`${name.padEnd(40)} p50 ${p(0.5).padStart(7)} ms  p95 ${p(0.95).padStart(7)} ms`);
    }
  } finally {
    await request.end();
    await owner.end();
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
