// The world of the execute-query and generate-sql tests (functions-reporting-query.test.ts and
// functions-reporting-generate.test.ts): a server whose language model is a fake on loopback, an auction with an
// owner and a member, an outsider with an auction of its own, and a dataset imported in each.
import {
  arrangeAuction,
  callFunction,
  startNotifyHarness,
  type NotifyHarness,
  type TestUser,
} from './functions-notify.fixture.js';
import { readSse, startFakeLlm, type FakeLlm } from './functions-reporting.fixture.js';

export interface QueryWorld {
  h: NotifyHarness;
  llm: FakeLlm;
  owner: TestUser;
  member: TestUser;
  outsider: TestUser;
  auctionId: string;
  /** The owner's auction's dataset "Cars": make, price, note (Ford 100, Kia 250, Ford 50). */
  datasetId: string;
  /** The outsider's auction's dataset. */
  otherDatasetId: string;
  close(): Promise<void>;
}

/** Imports CSV text through import-csv as `user`, into a new dataset named `name` or into `into`'s. */
export async function importCsvText(
  h: NotifyHarness,
  user: TestUser,
  auction: string,
  name: string | null,
  csv: string,
  into?: { dataset_id: string; mode: 'append' | 'replace' },
): Promise<string> {
  const r = await fetch(`${h.url}/functions/v1/import-csv`, {
    method: 'POST',
    headers: {
      apikey: h.server.ctx.anonKey,
      authorization: `Bearer ${user.token}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ auction_id: auction, ...(name === null ? {} : { name }), csv, ...into }),
  });
  const events = await readSse(r.body);
  const complete = events.find((e) => e.event === 'complete');
  if (!complete) throw new Error(`import failed: ${JSON.stringify(events)}`);
  return complete.data.dataset_id as string;
}

export async function startQueryWorld(): Promise<QueryWorld> {
  const llm = await startFakeLlm();
  const h = await startNotifyHarness({
    OPENAI_BASE_URL: llm.url,
    OPENAI_API_KEY: 'sk-test-secret',
    LLM_TIMEOUT_MS: '1500',
    // These tests are about results, not limits (the limits have tests of their own): an operator's override.
    FUNCTION_RATE_LIMITS: 'execute-query=1000/minute,generate-sql=1000/minute',
  });
  const owner = await h.signUp('query-owner', 'Quinn Owner');
  const member = await h.signUp('query-member', 'Mia Member');
  const outsider = await h.signUp('query-outsider', 'Otto Outsider');
  const auctionId = await arrangeAuction(h.db, owner, [[member, 'team_member']]);
  const otherAuction = await arrangeAuction(h.db, outsider, []);
  const datasetId = await importCsvText(
    h,
    owner,
    auctionId,
    'Cars',
    'make,price,note\nFord,100,"=HYPERLINK(""x"")"\nKia,250,"a, b"\nFord,50,\n',
  );
  const otherDatasetId = await importCsvText(h, outsider, otherAuction, 'Secret', 'secret\ntop\n');
  return {
    h,
    llm,
    owner,
    member,
    outsider,
    auctionId,
    datasetId,
    otherDatasetId,
    async close() {
      await h.close();
      await llm.close();
    },
  };
}

/** execute-query as `user` (the bare API key without one). */
export function queryAs(world: QueryWorld, user: TestUser | undefined, body: unknown) {
  return callFunction(world.h.url, world.h.server.ctx.anonKey, 'execute-query', { bearer: user?.token, body });
}
