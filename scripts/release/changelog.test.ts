// The changelog read as data: which entry names a migration, what is released, the version unreleased event
// types carry.
import { describe, expect, it } from 'vitest';
import { changelogEntries, comingVersion, migrationEntries, releaseOf } from './changelog.js';

const TEXT = `# Changelog

## [Unreleased]

### Upgrading

- \`domain/0036-transport.sql\`

## [0.4.0] - 2026-12-06

### Upgrading

- \`domain/0034-x.sql\`, \`domain\` 0030 to 0031

## [0.3.0] - 2026-11-28
`;
const ALL = ['domain/0030-a.sql', 'domain/0031-b.sql', 'domain/0034-x.sql', 'domain/0036-transport.sql'];

describe('the changelog', () => {
  it('reads [Unreleased] as an undated entry above the releases', () => {
    expect(changelogEntries(TEXT).map((e) => [e.version, e.date])).toEqual([
      ['Unreleased', ''],
      ['0.4.0', '2026-12-06'],
      ['0.3.0', '2026-11-28'],
    ]);
  });

  it('names migrations one by one and as runs, and knows which are released', () => {
    expect(Object.fromEntries(migrationEntries(TEXT, ALL))).toEqual({
      'domain/0036-transport.sql': ['Unreleased'],
      'domain/0034-x.sql': ['0.4.0'],
      'domain/0030-a.sql': ['0.4.0'],
      'domain/0031-b.sql': ['0.4.0'],
    });
    expect(releaseOf(TEXT, ALL, 'domain/0036-transport.sql')).toBeUndefined();
    expect(releaseOf(TEXT, ALL, 'domain/0031-b.sql')).toBe('0.4.0');
  });

  it('gives unreleased event types the minor release after the newest dated entry', () => {
    expect(comingVersion(TEXT)).toBe('0.5.0');
    expect(comingVersion('# Changelog\n\n## [Unreleased]\n')).toBe('0.1.0');
  });
});
