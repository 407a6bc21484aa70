// The audit line "writes answered with an error whose row exists": which answers count, and what is a problem.
import { describe, expect, it } from 'vitest';
import type { Refusal } from './messages.js';
import { answeredWithError, refusedAsDuplicates, refusedButStored } from './refused-writes.js';

const refusal = (over: Partial<Refusal>): Refusal => ({
  type: 'message',
  token: 'day-msg-1',
  status: 409,
  code: '23505',
  ...over,
});

describe('answeredWithError', () => {
  it('counts every HTTP error answer but the outcome-unknown 503 08007', () => {
    expect(answeredWithError({ status: 409, code: '23505' })).toBe(true);
    expect(answeredWithError({ status: 503, code: 'PGRST000' })).toBe(true);
    expect(answeredWithError({ status: 500, code: null })).toBe(true);
    expect(answeredWithError({ status: 503, code: '08007' })).toBe(false);
  });

  it('leaves out writes that got no answer (the client cannot know what happened)', () => {
    expect(answeredWithError({ status: 0, code: null })).toBe(false);
  });
});

describe('refusedButStored', () => {
  const stored = new Map([
    ['message', new Set(['day-msg-1'])],
    ['submission', new Set(['day-sub-9'])],
  ]);

  it('names a refused write whose marker is stored, by type', () => {
    expect(refusedButStored([refusal({})], stored)).toEqual([
      'message day-msg-1 was answered 409 23505 but is in public.messages',
    ]);
    expect(
      refusedButStored([refusal({ type: 'submission', token: 'day-sub-9', status: 500, code: 'XX000' })], stored),
    ).toHaveLength(1);
  });

  it('finds nothing for refused writes that are not stored, or stored under another type', () => {
    expect(refusedButStored([refusal({ token: 'day-msg-2' })], stored)).toEqual([]);
    expect(refusedButStored([refusal({ type: 'inspection' })], stored)).toEqual([]);
  });

  it('does not hold a stored write against the client when the answer said the outcome was unknown', () => {
    expect(
      refusedButStored([refusal({ status: 503, code: '08007' }), refusal({ status: 0, code: null })], stored),
    ).toEqual([]);
  });
});

describe('refusedAsDuplicates', () => {
  it('names every write answered 409 23505, stored or not: each carried a key made for it', () => {
    expect(refusedAsDuplicates([refusal({ type: 'submission', token: 'day-sub-1' })])).toEqual([
      'submission day-sub-1 was answered 409 23505 though its key was new',
    ]);
  });

  it('leaves other refusals to the other checks', () => {
    expect(
      refusedAsDuplicates([
        refusal({ code: '23503' }),
        refusal({ status: 503, code: 'PGRST000' }),
        refusal({ status: 0, code: null }),
      ]),
    ).toEqual([]);
  });
});
