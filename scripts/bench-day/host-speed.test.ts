import { expect, it } from 'vitest';
import { hostSpeedLine, measureHostSpeed } from './host-speed.js';

it('measures both figures as finite rates and prints them before and after the run', () => {
  const speed = measureHostSpeed(1);
  for (const figure of [speed.hashMbPerS, speed.copyMbPerS]) {
    expect(Number.isFinite(figure)).toBe(true);
    expect(figure).toBeGreaterThan(0);
  }
  const line = hostSpeedLine({
    before: { hashMbPerS: 1234.4, copyMbPerS: 5678.6 },
    after: { hashMbPerS: 1100, copyMbPerS: 5000 },
  });
  expect(line).toContain('sha256 1,234 MB/s, copy 5,679 MB/s before the run');
  expect(line).toContain('sha256 1,100 MB/s, copy 5,000 MB/s after');
});
