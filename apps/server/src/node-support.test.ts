import { expect, it } from 'vitest';
import { createLogger } from './logger.js';
import { warnOfOldNode } from './node-support.js';

const linesFor = (version: string) => {
  const lines: Array<Record<string, unknown>> = [];
  warnOfOldNode(
    createLogger('info', (line) => lines.push(JSON.parse(line))),
    version,
  );
  return lines;
};

it('warns at start on Node 20, past its end of life, naming the version and the LTS to use', () => {
  expect(linesFor('20.19.0')).toEqual([
    expect.objectContaining({ level: 'warn', msg: expect.stringContaining('Node 24'), node: 'v20.19.0' }),
  ]);
});

it('says nothing on a Node still maintained', () => {
  expect(linesFor('22.12.0')).toEqual([]);
  expect(linesFor('24.21.0')).toEqual([]);
});
