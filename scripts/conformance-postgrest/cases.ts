// What the translator makes of the suite and the runner executes: a case per hspec example (`it`), each a list of
// steps (requests with the checks of `shouldRespondWith`, or checks on a response bound with `<-`), run under the
// PostgREST configuration its spec group was written for.

export interface HttpRequest {
  readonly method: string;
  /** Path and query string as the test wrote them. */
  readonly path: string;
  /** In the test's order; a name may repeat (two Prefer headers are two header lines). */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer;
}

export interface HttpResponse {
  readonly status: number;
  /** Every header line as received (names lower-case). */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer;
}

/** One check of a response: null when it holds, else what differed. */
export interface Check {
  /** What is expected, for the report (`status 201`, `Content-Range: 0-1/*`, the expected body). */
  readonly expected: string;
  /** The kind of check, to group failures by: status, body, header:<name>. */
  readonly kind: string;
  test(res: HttpResponse): string | null;
}

export type Step =
  /** `request ... \`shouldRespondWith\` matcher` (no checks: a request whose answer the test ignores). */
  | {
      readonly kind: 'respond';
      readonly request: HttpRequest;
      readonly checks: readonly Check[];
      readonly bind?: number;
    }
  /** A check on the response bound earlier to `ref` (`r <- request ...` then `simpleHeaders r \`shouldSatisfy\` ...`). */
  | { readonly kind: 'check'; readonly ref: number; readonly check: Check };

/** PostgREST's settings as PGRST_* variables, or the AppConfig fields that have no such setting. */
export interface RunConfig {
  /** A stable key: cases with equal keys share one engine process. */
  readonly key: string;
  readonly env: Readonly<Record<string, string>>;
  readonly unmapped: readonly string[];
}

export interface TranslatedCase {
  readonly file: string;
  /** The describe/context names down to the example's own. */
  readonly path: readonly string[];
  readonly config: RunConfig;
  readonly steps: readonly Step[];
}

export interface UntranslatedCase {
  readonly file: string;
  readonly path: readonly string[];
  readonly reason: string;
}

export type SuiteCase =
  | ({ readonly kind: 'translated' } & TranslatedCase)
  | ({ readonly kind: 'untranslated' } & UntranslatedCase);
