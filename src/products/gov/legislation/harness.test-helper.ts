// For the legislation countries' tests: a family of some countries over the shared recordings; a handler
// context opened before a file's tests and closed after them, with the route called as the service calls it
// (a 400 naming the parameter when the query does not parse, else the handler); and a real service on a
// loopback port for the end-to-end tests, with funded buyers and the jobs its worker runs.
import assert from "node:assert/strict";
import path from "node:path";
import { after, before, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { type FamilyTestContext, openFamilyContext } from "../../../../test/family-harness.ts";
import { newBuyer, startTestService, type TestService } from "../../../../test/harness.ts";
import type { AnyProduct, Family, FamilyFactory, Outcome } from "../../../catalog/product.ts";
import { loadConfig } from "../../../config.ts";
import { loadRecordings } from "../../../upstream/recordings.ts";
import { creditWallet } from "../../../x402/facilitator/facilitator.ts";
import { NETWORKS } from "../../../x402/shared/networks.ts";
import { assembleGovFamily, type CountryModuleFactory } from "../shared/gov-product.ts";
import { GOV_MIGRATIONS } from "../shared/migrations.ts";
import { LEGISLATION_RECORDINGS_DIR } from "./index.ts";

export function legislationFamily(name: string, countries: CountryModuleFactory[]): FamilyFactory {
  return assembleGovFamily(name, countries, LEGISLATION_RECORDINGS_DIR, GOV_MIGRATIONS);
}

/** A legislation answer as a test reads it: checked against the route's declared answer, the country's extras open. */
export type LegislationBody = Record<string, any> & { items?: Array<Record<string, any>> };

export const field = (outcome: { body: unknown }, name: string) =>
  (outcome.body as Record<string, unknown>)[name];

export interface RouteTest {
  family: FamilyFactory;
  /** Open from the file's `before` to its `after`. */
  readonly ctx: FamilyTestContext;
  /** The family's first route, called on `on` (the file's context unless told). */
  call: (
    params: Record<string, string>,
    on?: FamilyTestContext,
  ) => Promise<Outcome<unknown> | { status: 400; body: { parameter: string } }>;
  runJob: (queue: string, payload: unknown) => Promise<unknown>;
  /** The body parsed by the answer schema the route publishes (throws where it does not conform). */
  answer: (body: unknown) => LegislationBody;
}

/** Registers the file's `before` and `after`: call it at the top level of a test file. */
export function routeTest(name: string, countries: CountryModuleFactory[]): RouteTest {
  const family = legislationFamily(name, countries);
  let opened: FamilyTestContext | undefined;
  before(async () => {
    opened = await openFamilyContext(family);
  });
  after(() => opened?.close());
  const ctx = () => {
    if (!opened) throw new Error(`${name}: the test context is not open (outside the file's tests)`);
    return opened;
  };
  return {
    family,
    get ctx() {
      return ctx();
    },
    async call(params, on = ctx()) {
      const route = ctx().family.products[0] as AnyProduct;
      const parsed = route.query?.safeParse(params);
      if (!parsed?.success)
        return { status: 400, body: { parameter: String(parsed?.error.issues[0]?.path[0]) } } as const;
      return route.handle({ query: parsed.data, body: undefined }, on);
    },
    runJob: async (queue, payload) => ctx().family.jobs?.[queue]?.(payload, ctx()),
    answer: (body) => (ctx().family.products[0] as AnyProduct).answer.parse(body) as LegislationBody,
  };
}

export interface ServiceTest {
  readonly service: TestService;
  /** A new buyer holding 1 USDC on the local facilitator. */
  fundedBuyer: () => Promise<ReturnType<typeof newBuyer>>;
  balanceOf: (address: string) => Promise<bigint>;
  /** Waits (up to 10 s) for the service's worker to finish a job: true when it did. */
  waitForJob: (queue: string, key: string) => Promise<boolean>;
  /** As waitForJob, failing the test when the job is not done. */
  jobDone: (queue: string, key: string) => Promise<void>;
  /** The body parsed by the answer schema the route at `path` publishes (throws where it does not conform). */
  answer: (path: string, body: unknown) => LegislationBody;
}

/**
 * A real service (UPSTREAMS=replay) serving the countries, started before the file's tests (then `warm` runs)
 * and stopped after them.
 */
export function serviceTest(
  countries: CountryModuleFactory[],
  env: Record<string, string> = {},
  warm: (service: TestService) => Promise<unknown> = async () => {},
): ServiceTest {
  const family = legislationFamily("gov-legislation", countries);
  let started: TestService | undefined;
  let served: Family | undefined;
  before(async () => {
    served = family(loadConfig({ UPSTREAMS: "replay", ...env }));
    started = await startTestService(env, [served]);
    await warm(started);
  });
  after(() => started?.stop());
  const service = () => {
    if (!started) throw new Error("the test service is not started (outside the file's tests)");
    return started;
  };
  const waitForJob = async (queue: string, key: string) => {
    for (let i = 0; i < 400; i++) {
      if ((await service().store.jobs.get(queue, key))?.state === "done") return true;
      await sleep(25);
    }
    return false;
  };
  return {
    get service() {
      return service();
    },
    async fundedBuyer() {
      const buyer = newBuyer();
      await creditWallet(service().store, NETWORKS.base, buyer.address, "1");
      return buyer;
    },
    balanceOf: (address) => service().store.localUsdc.balance(NETWORKS.base.caip2, address),
    waitForJob,
    async jobDone(queue, key) {
      if (!(await waitForJob(queue, key))) assert.fail(`job ${queue}/${key} not done`);
    },
    answer(path, body) {
      const route = served?.products.find((product) => product.path === path);
      if (!route) throw new Error(`no route ${path} in the test service (or it is not started)`);
      return route.answer.parse(body) as LegislationBody;
    },
  };
}

/** One test a case: the query is refused with a 400 naming the parameter, and no payment is asked. */
export function itRefusesBeforePayment(
  test: ServiceTest,
  path: string,
  cases: Array<[string, string]>,
  assertNotCharged = true,
) {
  for (const [query, parameter] of cases) {
    if (query === "") {
      it("a bare request (no parameters) → the route's 402, as an indexer's probe gets it", async () => {
        const response = await fetch(`${test.service.url}${path}`);
        assert.equal(response.status, 402);
        assert.ok(response.headers.get("payment-required"));
        await response.arrayBuffer();
      });
      continue;
    }
    it(`?${query.slice(0, 40)} → 400 naming ${parameter}, before payment`, async () => {
      const response = await fetch(`${test.service.url}${path}?${query}`);
      assert.equal(response.status, 400);
      assert.equal(response.headers.get("payment-required"), null);
      const body = (await response.json()) as { parameter: string; charged: boolean };
      if (assertNotCharged) assert.deepEqual([body.parameter, body.charged], [parameter, false]);
      else assert.equal(body.parameter, parameter);
    });
  }
}

/** The outcome's status and the named fields of its body, checked as one deepEqual in that order. */
export function assertOutcome(
  outcome: { status: number; body: unknown },
  expected: { status: number } & Record<string, unknown>,
  message?: string,
) {
  const { status, ...fields } = expected;
  assert.deepEqual(
    [outcome.status, ...Object.keys(fields).map((name) => field(outcome, name))],
    [status, ...Object.values(fields)],
    message,
  );
}

let recordings: ReturnType<typeof loadRecordings> | undefined;

/** The response body of the recording `<name>.recording.json` in the legislation recordings. */
export function recordedBody(name: string): string {
  recordings ??= loadRecordings(LEGISLATION_RECORDINGS_DIR);
  const found = recordings.find((r) => path.basename(r.file) === `${name}.recording.json`);
  assert.ok(found, name);
  return found.body;
}
