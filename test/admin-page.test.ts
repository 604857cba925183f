// The operator page in a real headless Chromium: refused without the token; after the sign-in link, the
// revenue chart, the figures, escaped values and the no-script refund form all work, loading nothing else.
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, test } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { BASE, dayBefore, seedCounts, seedLedger } from "./admin-seed.ts";
import { startListeningService, type TestService } from "./harness.ts";

const CHROMIUM = "/usr/bin/chromium";
const TOKEN = "browser-admin-token-0123456789";
const EVIL_SKU = "evil.<b>bold</b>";
const EVIL_PAYER = `<img src=x onerror="document.title='pwned'">`;
const REFUND_TX = `0x${"ef".repeat(32)}`;
const present = fs.existsSync(CHROMIUM);
if (!present && process.env.CI === "true")
  throw new Error(`${CHROMIUM} is missing: CI must run the browser test`);
const skip = present ? false : `${CHROMIUM} is not installed (apt-get install chromium); skipped outside CI`;

const now = new Date();
let service: TestService;
let browser: Browser;
let evilRow: number;

before(async () => {
  if (!present) return;
  // A listener: the page is opened in a real browser.
  service = await startListeningService({ ADMIN_TOKEN: TOKEN });
  await seedLedger(service.store, now, { sku: EVIL_SKU });
  await seedCounts(service.store);
  // Owed a refund, with a payer that would run script if it were not escaped.
  const at = new Date(now.getTime() - 4 * 24 * 3600_000);
  evilRow = await service.store.ledger.record(
    {
      sku: EVIL_SKU,
      requestHash: "h",
      network: BASE,
      payer: EVIL_PAYER,
      amount: "2",
      asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
      payTo: "0x9999999999999999999999999999999999999999",
      transaction: `0x${"cd".repeat(32)}`,
      responseSha256: "0".repeat(64),
      state: "pending",
    },
    at,
  );
  await service.store.ledger.resolve(evilRow, "settled", `0x${"cd".repeat(32)}`, null, { now: at });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
});

after(async () => {
  await browser?.close();
  await service?.stop();
});

/** A fresh browser context, with every request it makes recorded. */
async function newPage(): Promise<{ page: Page; requests: string[] }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const requests: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  return { page, requests };
}

test("without the token the page is refused", { skip }, async () => {
  const { page } = await newPage();
  const response = await page.goto(`${service.url}/admin`);
  assert.equal(response?.status(), 404);
  assert.equal(await page.locator("svg").count(), 0);
  const wrong = await page.goto(`${service.url}/admin?token=not-the-admin-token-000`);
  assert.equal(wrong?.status(), 404);
  await page.context().close();
});

test("the sign-in link opens the page: 30 daily bars, the figures, escaped values, nothing loaded from outside", {
  skip,
}, async () => {
  const { page, requests } = await newPage();
  const response = await page.goto(`${service.url}/admin?token=${TOKEN}`);
  assert.equal(response?.status(), 200);
  assert.equal(new URL(page.url()).search, "", "the token left the address bar");

  const bars = page.locator("svg.chart rect.bar");
  assert.equal(await bars.count(), 30);
  assert.equal(await page.locator("svg.chart").getAttribute("role"), "img");
  assert.match(
    (await page.locator("#chart-title").textContent()) ?? "",
    new RegExp(`${dayBefore(now, 29)} to ${dayBefore(now, 0)}`),
  );
  // The tallest bar is the day with $1.25; a day without sales has no height.
  const heights = await bars.evaluateAll((rects) => rects.map((r) => Number(r.getAttribute("height"))));
  const tallest = heights.indexOf(Math.max(...heights));
  assert.equal(await bars.nth(tallest).getAttribute("data-day"), dayBefore(now, 3));
  assert.equal(heights[0], 0);
  assert.equal(
    await page.locator(`svg.chart g.day[data-day="${dayBefore(now, 3)}"] > title`).textContent(),
    `${dayBefore(now, 3)}: $1.25 from 2 paid calls`,
  );

  const cards = (await page.locator("section.cards .card").allTextContents()).map((t) =>
    t.replace(/\s+/g, " "),
  );
  for (const figure of ["Revenue$1.515003", "Paid calls8", "Refunds due2 ($0.005002)"])
    assert.ok(cards.includes(figure), `${figure} in ${cards.join(" | ")}`);
  const aOne = page.locator("tr", { has: page.locator("code", { hasText: /^a\.one$/ }) }).first();
  assert.deepEqual(await aOne.locator("td").allTextContents(), [
    "a.one",
    "$0.015",
    "3",
    "4",
    "2",
    "50.0%",
    "3",
    "0 / 0",
  ]);

  // Each lane's depth and running jobs (the figures themselves are the stats' test: this service's worker may be
  // running the seeded job right now).
  for (const lane of ["fetch", "warm", "bulk"]) {
    const row = page
      .locator('section[aria-labelledby="h-lanes"] tr', {
        has: page.locator("code", { hasText: new RegExp(`^${lane}$`) }),
      })
      .first();
    const [name, depth, running] = (await row.locator("td").allTextContents()).slice(0, 3);
    assert.equal(name, lane);
    assert.match(`${depth} ${running}`, /^\d+ \d+$/);
  }

  // Values are shown as text, never as markup.
  assert.ok((await page.locator("code", { hasText: EVIL_SKU }).count()) > 0);
  assert.equal(await page.locator("table b").count(), 0);
  assert.ok((await page.getByText(EVIL_PAYER).count()) > 0);
  assert.equal(await page.locator("img").count(), 0);
  assert.equal(await page.title(), "paycall operator view");

  assert.ok(requests.length > 0);
  for (const url of requests) assert.ok(url.startsWith(service.url), `loaded ${url}`);
  await page.context().close();
});

test("a refund recorded through the page's form leaves the refunds-due table", { skip }, async () => {
  const { page } = await newPage();
  await page.goto(`${service.url}/admin?token=${TOKEN}`);
  const form = page.locator(`form[action="/admin/refunds/${evilRow}"]`);
  await form.locator('input[name="transaction"]').fill(REFUND_TX);
  await form.locator('input[name="note"]').fill("sent from the pay-to wallet");
  await Promise.all([page.waitForURL(/refunded=/), form.locator("button").click()]);
  assert.match((await page.locator(".flash").textContent()) ?? "", new RegExp(`ledger row ${evilRow}`));
  assert.equal(await page.locator(`form[action="/admin/refunds/${evilRow}"]`).count(), 0);
  assert.ok((await page.getByText(REFUND_TX).count()) > 0, "listed under refunds made");
  assert.equal((await service.store.refunds.get(evilRow))?.note, "sent from the pay-to wallet");
  await page.context().close();
});
