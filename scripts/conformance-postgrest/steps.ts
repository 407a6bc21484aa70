// The suite's assertions as steps: `shouldRespondWith` (a request and hspec-wai's matcher), and the few checks on
// a response bound with `<-` whose meaning is plain (`simpleBody r \`shouldBe\` "text"`, `simpleHeaders r
// \`shouldSatisfy\` matchHeader ...`). Assertions over values computed in Haskell (lenses into the body, costs of a
// plan, lookups) are not translated.
import type { Check, Step } from './cases.js';
import { bodyBytes, bodyJson, headerIs, jsonContentType, statusIs } from './checks.js';
import { type Val, Untranslatable, bytesOf, describe, ready } from './values.js';

export function respond(action: Val, matcher: Val): Val {
  const m = toMatcher(matcher);
  const checks: Check[] = [statusIs(m.status), ...m.headers, ...(m.body ? [m.body] : [])];
  if (action.t === 'request' && !action.part)
    return { t: 'steps', steps: [{ kind: 'respond', request: action.request, checks }] };
  // A do block whose last statement is the request (its value is that response).
  if (action.t === 'steps') {
    const last = action.steps[action.steps.length - 1];
    if (last?.kind === 'respond' && last.checks.length === 0 && last.bind === undefined)
      return { t: 'steps', steps: [...action.steps.slice(0, -1), { ...last, checks }] };
  }
  throw new Untranslatable(`shouldRespondWith on ${describe(action)}`);
}

export function shouldBe(actual: Val, expected: Val): Val {
  if (actual.t === 'response' && actual.part === 'body' && expected.t === 'str')
    return check(actual.ref, bodyBytes(bytesOf(expected)));
  if (actual.t === 'response' && actual.part === 'status' && expected.t === 'num')
    return check(actual.ref, statusIs(expected.v));
  throw new Untranslatable(`shouldBe on ${describe(actual)} and ${describe(expected)}`);
}

/** `headers \`shouldSatisfy\` predicate`: the predicate applied to the bound headers must give a check. */
export function shouldSatisfy(actual: Val, predicate: Val): Val {
  if (actual.t === 'response' && actual.part === 'headers' && predicate.t === 'fn') {
    const c = predicate.apply(ready(actual));
    if (c.t === 'check') return check(actual.ref, c.check);
  }
  throw new Untranslatable(`shouldSatisfy on ${describe(actual)} with ${describe(predicate)}`);
}

/**
 * `simpleHeaders r \`shouldContain\` [("Name", "value")]`: each listed header is among the bound response's (a list
 * of one pair, as the suite writes it: a longer one would ask for adjacent headers, which no check here reads).
 */
export function shouldContain(actual: Val, expected: Val): Val {
  if (actual.t === 'response' && actual.part === 'headers' && expected.t === 'list' && expected.items.length === 1) {
    const [pair] = expected.items;
    if (pair!.t === 'tuple' && pair!.items.length === 2) {
      const [name, value] = pair!.items;
      if (name!.t === 'str' && value!.t === 'str') return check(actual.ref, headerIs(name!.v, value!.v));
    }
  }
  throw new Untranslatable(`shouldContain on ${describe(actual)} with ${describe(expected)}`);
}

function check(ref: number, c: Check): Val {
  const steps: Step[] = [{ kind: 'check', ref, check: c }];
  return { t: 'steps', steps };
}

/** hspec-wai's ResponseMatcher from a number (status only), a string (exact body), a JSON quote, or a matcher. */
export function toMatcher(v: Val): Extract<Val, { t: 'matcher' }> {
  if (v.t === 'matcher') return v;
  if (v.t === 'num') return { t: 'matcher', status: v.v, headers: [], body: null };
  return matcherOfBody(v);
}

function matcherOfBody(v: Val): Extract<Val, { t: 'matcher' }> {
  if (v.t === 'str') return { t: 'matcher', status: 200, headers: [], body: bodyBytes(bytesOf(v)) };
  if (v.t === 'json') return { t: 'matcher', status: 200, headers: [jsonContentType], body: bodyJson(v.v) };
  throw new Untranslatable(`a response matcher from ${describe(v)}`);
}
