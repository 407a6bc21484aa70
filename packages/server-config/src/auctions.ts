// Deleting an auction (domain/0031-auction-soft-delete.sql): how long a deleted auction can be brought back, and
// the purge job that removes it for real afterwards.
import * as v from 'valibot';
import { bool } from './fields.js';

/** A non-negative number; fractions are accepted (tests use seconds' worth of days or minutes). */
const amount = (unit: string, min: number) =>
  v.pipe(
    v.string(),
    v.regex(/^\d+(\.\d+)?$/, `must be a number of ${unit}`),
    v.transform(Number),
    v.minValue(min, `must be at least ${min}`),
  );

export const auctionsSettings = {
  AUCTION_DELETE_GRACE_DAYS: v.optional(amount('days', 0), '30'),
  AUCTION_PURGE_ENABLED: v.optional(bool, 'true'),
  AUCTION_PURGE_INTERVAL_MINUTES: v.optional(amount('minutes', 0.01), '60'),
};
