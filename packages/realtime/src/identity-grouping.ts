// A match's targets grouped by identity: the policies are asked once per identity, not once per subscriber. Kept
// while the match is (shared matches last until the bindings change) and every target still has the identity it
// was grouped under (a channel's identity changes with its token), so the access plan made for the same identities
// array is used again.
import type { ChangeTarget } from './change-binding.js';
import { entry } from './map-entry.js';
import type { Identity } from './subscriber-identity.js';

/** The targets of a change and, per target, the ids of its bindings the change matched. */
export type MatchTargets = ReadonlyMap<ChangeTarget, readonly number[]>;

/** Per identity key, the targets of a match with that identity and their binding ids. */
export type ByIdentity = Map<string, [ChangeTarget, readonly number[]][]>;

interface Grouping {
  byIdentity: ByIdentity;
  /** The distinct identities of the match. */
  identities: Identity[];
  /** Each target's identity when grouped, in the match's order. */
  as: Identity[];
  roles: string[];
}

export class IdentityGroupings {
  private readonly groupings = new WeakMap<MatchTargets, Grouping>();

  of(targets: MatchTargets): Grouping {
    const known = this.groupings.get(targets);
    if (known && sameIdentities(targets, known.as)) return known;
    const byIdentity: ByIdentity = new Map();
    const identities = new Map<string, Identity>();
    const as: Identity[] = [];
    for (const [target, ids] of targets) {
      as.push(target.identity);
      identities.set(target.identity.key, target.identity);
      entry(byIdentity, target.identity.key, () => []).push([target, ids]);
    }
    const grouping = {
      byIdentity,
      identities: [...identities.values()],
      as,
      roles: [...new Set(as.map((i) => i.role))],
    };
    this.groupings.set(targets, grouping);
    return grouping;
  }
}

function sameIdentities(targets: MatchTargets, as: readonly Identity[]): boolean {
  let i = 0;
  for (const target of targets.keys()) if (target.identity !== as[i++]) return false;
  return true;
}
