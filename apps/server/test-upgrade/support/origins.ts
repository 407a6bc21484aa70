// The states an upgrade starts from: each release by the commit it was made from (the last before the next
// release's work began, with apps/server/package.json's version at that release), and the state before 0.1.0 that
// issue 55 found failing. A release adds its line here, and the upgrade tests cover it.
export interface Origin {
  readonly name: string;
  readonly commit: string;
  /** apps/server/package.json's version at the commit. */
  readonly version: string;
}

/** The service as it stood on 2026-11-25, before the changelog's first entry (its data directories exist). */
export const PRE_RELEASE: Origin = {
  name: 'the pre-release state of 734ca04',
  commit: '734ca046453cd7c6fc98987b71e34af5b73f6e39',
  version: '0.1.0',
};

export const RELEASES: readonly Origin[] = [
  { name: '0.1.0', commit: 'a2cdf8e6aa48a575b5e9ea9687c8e3e72341024b', version: '0.1.0' },
  { name: '0.2.0', commit: '57a6e9af4df262662fc9172f438cf47a0d9c1c3d', version: '0.2.0' },
  { name: '0.3.0', commit: '9cc3adb8d2ff20c6d0fac23d986ada30d4dce60c', version: '0.3.0' },
  { name: '0.3.1', commit: '2ea76d15a445b5587773a682c5bedf6a3899d6aa', version: '0.3.1' },
  { name: '0.3.2', commit: '1445129b825d85c74b5493ed9d3e1a113af01473', version: '0.3.2' },
];
