// The profile at a multiple K, compressed: how many of each thing (world.ts makes them) and the schedule of every
// action of the hour, as offsets in milliseconds from the start, spread evenly with jitter so the load is open
// (an action starts at its time whatever the earlier ones are doing) and no two runs start in lockstep.
import { profile } from './profile.js';

export const PASSWORD = 'day-bench-password-9';

export type Job =
  | { kind: 'submission'; at: number; auction: number; location: number; user: number }
  | { kind: 'inspection'; at: number; auction: number; location: number; user: number; defects: number }
  | { kind: 'report'; at: number; auction: number; location: number; user: number }
  | { kind: 'message'; at: number; auction: number; user: number }
  | { kind: 'refresh'; at: number; auction: number; user: number }
  | { kind: 'import'; at: number; auction: number; user: number };

export interface Plan {
  k: number;
  profile: typeof profile;
  compression: number;
  /** How long the run plays: the compressed hour, or the slice of it `--minutes` asks for. */
  durationMs: number;
  /** The compressed hour's length (durationMs for a whole hour). */
  hourMs: number;
  auctions: number;
  staff: number;
  admins: number;
  submissionSubscribers: number;
  jobs: Job[];
}

/** `x` at K, at least one. */
const scaled = (x: number, k: number) => Math.max(1, Math.round(x * k));

/** `count` times spread over `durationMs`: one in each equal slice, at a random point of it. */
function spread(count: number, durationMs: number, random: () => number): number[] {
  return Array.from({ length: count }, (_, i) => Math.floor(((i + random()) / count) * durationMs));
}

/** A seeded generator (mulberry32), so a K's schedule is the same in every run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The plan at K and compression; with `minutes`, only the hour's first `minutes` minutes of play (the jobs of the
 * whole hour at the same rates, cut where the slice ends), so that a large K at a low compression runs in a set time.
 */
export function makePlan(k: number, compression: number, minutes?: number): Plan {
  const p = profile;
  const random = seeded(Math.round(k * 1000) + compression);
  const pick = (n: number) => Math.floor(random() * n);
  const hourMs = Math.round((3600 / compression) * 1000);
  const durationMs = minutes === undefined ? hourMs : Math.min(hourMs, Math.round(minutes * 60_000));
  const auctions = scaled(p.auctions, k);
  // Staff and admins are dealt to auctions round robin (world.ts): user u of auction a is the u-th so dealt.
  const staff = Math.max(auctions, scaled(p.staffOnline, k));
  const admins = Math.max(auctions, scaled(p.admins, k));
  const perAuction = (total: number, a: number) => Math.floor(total / auctions) + (a < total % auctions ? 1 : 0);
  const jobs: Job[] = [];
  const perHour = (count: number, make: (at: number, i: number) => Job) => {
    for (const [i, at] of spread(count, hourMs, random).entries()) jobs.push(make(at, i));
  };

  const locations = p.locationsPerAuction;
  perHour(auctions * locations * (60 / p.submissionEveryMinutes), (at, i) => {
    const auction = i % auctions;
    return { kind: 'submission', at, auction, location: pick(locations), user: pick(perAuction(staff, auction)) };
  });
  perHour(auctions * p.inspectionsPerAuctionPerHour, (at, i) => {
    const auction = i % auctions;
    const { min, max } = p.defectsPerInspection;
    const defects = min + pick(max - min + 1);
    return {
      kind: 'inspection',
      at,
      auction,
      location: pick(locations),
      user: pick(perAuction(staff, auction)),
      defects,
    };
  });
  perHour(Math.max(1, Math.round((auctions * p.rockReportsPerAuctionPerDay) / p.operatingHoursPerDay)), (at) => {
    const auction = pick(auctions);
    return { kind: 'report', at, auction, location: pick(locations), user: pick(perAuction(admins, auction)) };
  });
  perHour(staff * p.messagesPerStaffPerHour, (at, i) => {
    const auction = i % auctions;
    return { kind: 'message', at, auction, user: pick(perAuction(staff, auction)) };
  });
  // Each admin refreshes every adminRefreshSeconds of the real hour, from a random phase.
  const refreshMs = (p.adminRefreshSeconds * 1000) / compression;
  for (let u = 0; u < admins; u++) {
    const auction = u % auctions;
    const user = Math.floor(u / auctions);
    for (let at = random() * refreshMs; at < hourMs; at += refreshMs)
      jobs.push({ kind: 'refresh', at: Math.floor(at), auction, user });
  }
  perHour(scaled(p.csvImportsPerHour, k), (at, i) => ({
    kind: 'import',
    at,
    auction: i % auctions,
    user: Math.floor(i / auctions) % perAuction(admins, i % auctions),
  }));
  jobs.sort((a, b) => a.at - b.at);
  return {
    k,
    profile: p,
    compression,
    durationMs,
    hourMs,
    auctions,
    staff,
    admins,
    submissionSubscribers: scaled(p.submissionSubscribers, k),
    jobs: jobs.filter((job) => job.at < durationMs),
  };
}

/** What a run plays: the hour in N s, or the first N s of the hour's M s. */
export function playing(plan: Pick<Plan, 'durationMs' | 'hourMs'>): string {
  const seconds = (ms: number) => Math.round(ms / 1000);
  return plan.durationMs < plan.hourMs
    ? `the first ${seconds(plan.durationMs)} s of the hour's ${seconds(plan.hourMs)} s`
    : `the hour in ${seconds(plan.durationMs)} s`;
}
