import { expect, it, vi } from 'vitest';
import { ExpiringAnswers } from './expiring-answers.js';

it('asks once for questions in flight together, keeps the answer while fresh, and asks again once old', async () => {
  vi.useFakeTimers();
  try {
    const answers = new ExpiringAnswers<number>(5_000);
    let asked = 0;
    const ask = async () => ++asked;
    expect(await Promise.all([answers.get('k', ask), answers.get('k', ask)])).toEqual([1, 1]);
    vi.advanceTimersByTime(4_999);
    expect(await answers.get('k', ask)).toBe(1);
    vi.advanceTimersByTime(1);
    expect(await answers.get('k', ask)).toBe(2);
    expect(answers.last('k')?.value).toBe(2);
    answers.clear();
    expect(answers.last('k')).toBeUndefined();
  } finally {
    vi.useRealTimers();
  }
});

it('keeps no answer from a question that failed, and asks again next time', async () => {
  const answers = new ExpiringAnswers<string>(5_000);
  await expect(answers.get('k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
  expect(answers.last('k')).toBeUndefined();
  expect(await answers.get('k', async () => 'up')).toBe('up');
});
