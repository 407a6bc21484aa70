// Fixed vocabulary of the demo data set: auctions, locations with their hours, submission types, people,
// rock reports and chat lines. Kept apart from the generator so the SQL steps stay readable.
import { readFileSync } from 'node:fs';

interface DemoLocation {
  name: string;
  address: string;
  start: string | null;
  end: string | null;
  frequencyMinutes: number;
}

interface DemoAuction {
  name: string;
  slug: string;
  timezone: string;
  tier: 'free' | 'pro' | 'enterprise';
  locations: DemoLocation[];
}

export const AUCTIONS: DemoAuction[] = [
  {
    name: 'Riverside Auto Auction',
    slug: 'riverside',
    timezone: 'America/Chicago',
    tier: 'pro',
    locations: [
      { name: 'North Lot', address: '1200 River Rd, Dallas, TX', start: '06:00', end: '18:00', frequencyMinutes: 60 },
      { name: 'South Lot', address: '1450 River Rd, Dallas, TX', start: '07:00', end: '19:00', frequencyMinutes: 90 },
      {
        name: 'Overflow Field',
        address: '88 Prairie Ave, Dallas, TX',
        start: '08:00',
        end: '16:00',
        frequencyMinutes: 120,
      },
      { name: 'Night Intake', address: '3 Dock St, Dallas, TX', start: '22:00', end: '06:00', frequencyMinutes: 60 },
      { name: 'Recon Shop', address: '15 Shop Ln, Dallas, TX', start: '07:30', end: '17:30', frequencyMinutes: 120 },
      { name: 'Main Gate', address: '1 Auction Way, Dallas, TX', start: null, end: null, frequencyMinutes: 240 },
    ],
  },
  {
    name: 'Bayside Car Auctions',
    slug: 'bayside',
    timezone: 'America/Los_Angeles',
    tier: 'free',
    locations: [
      {
        name: 'Harbor Yard',
        address: '400 Harbor Blvd, Oakland, CA',
        start: '06:30',
        end: '17:00',
        frequencyMinutes: 60,
      },
      { name: 'Hill Lot', address: '22 Hill St, Oakland, CA', start: '21:00', end: '05:00', frequencyMinutes: 90 },
    ],
  },
];

export const SUBMISSION_TYPES: { name: string; description: string; max: number }[] = [
  { name: 'Ready for sale', description: 'Inspected and staged for the lane', max: 60 },
  { name: 'Awaiting recon', description: 'Needs reconditioning before sale', max: 25 },
  { name: 'Sold - awaiting pickup', description: 'Sold, buyer has not collected', max: 40 },
  { name: 'Arbitration hold', description: 'Held pending arbitration', max: 6 },
  { name: 'No-sale return', description: 'Did not sell, returning to consignor', max: 15 },
];

export const PEOPLE: { key: string; fullName: string; role: 'owner' | 'admin' | 'team_member' }[] = [
  { key: 'owner', fullName: 'Olivia Owens', role: 'owner' },
  { key: 'admin', fullName: 'Adam Alvarez', role: 'admin' },
  { key: 'lot1', fullName: 'Tina Torres', role: 'team_member' },
  { key: 'lot2', fullName: 'Marcus Lee', role: 'team_member' },
  { key: 'lot3', fullName: 'Priya Patel', role: 'team_member' },
  { key: 'inspector', fullName: 'Ivan Ibrahim', role: 'team_member' },
];

interface DemoRockReport {
  issue: string;
  area: string;
  status: 'open' | 'in_progress' | 'closed';
  causes: string[];
  actions: [string, string, 'pending' | 'in_progress' | 'complete'][];
}

// The reports are data, one record each, kept as JSON (rock-reports.json).
export const ROCK_REPORTS = JSON.parse(
  readFileSync(new URL('./rock-reports.json', import.meta.url), 'utf8'),
) as DemoRockReport[];

export const CHANNELS: { name: string; description: string; isDefault?: boolean; locationIndex?: number }[] = [
  { name: 'general', description: 'Everyone at the auction', isDefault: true },
  { name: 'north-lot', description: 'North Lot crew', locationIndex: 0 },
  { name: 'night-intake', description: 'Night Intake handover notes', locationIndex: 3 },
  { name: 'managers', description: 'Owners and admins' },
];

export const MESSAGES = [
  'Morning all, lanes open at 9.',
  'Truck from Hertz arriving around 10:30.',
  'Who has the keys for the white F-150?',
  'North Lot is at capacity, routing new arrivals to Overflow.',
  'Photo booth is back up.',
  'Need two people for check-in.',
  'Reminder: submit counts every hour.',
  'Arbitration unit moved to row K.',
  'Great numbers today, thanks everyone!',
  'Gate code changes tomorrow.',
  'Rain expected this afternoon, cover the convertibles.',
  'Battery cart is charged.',
];
export const REPLIES = [
  'On it.',
  'Done.',
  'Thanks!',
  'I can take that.',
  'Keys are in the cabinet, slot 14.',
  'Will check after lunch.',
];
export const EMOJIS = ['👍', '✅', '🙏', '🎉', '👀'];
