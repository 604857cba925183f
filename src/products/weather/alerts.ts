// GET /v1/weather/alerts-by-state: active NWS watches, warnings and advisories for one state or territory,
// named in full. Cached until NWS's Expires (about a minute).
import { z } from "zod";
import { ok, product } from "../../catalog/product.ts";
import { provenance, provenanceOf, Timestamp } from "./answers.ts";
import { Deadline, lookupAlerts } from "./lookup.ts";
import { AlertsQuery } from "./query.ts";
import { ALERTS_PATH, NWS_SOURCE, nwsUrl } from "./upstream.ts";

const Nullable = z.string().nullable();

const AlertSchema = z.object({
  id: z.string().describe("CAP identifier (urn:oid:…)"),
  event: Nullable.describe("e.g. Heat Advisory, Winter Storm Warning"),
  headline: Nullable,
  severity: Nullable.describe("CAP severity: Extreme, Severe, Moderate, Minor, Unknown"),
  certainty: Nullable.describe("CAP certainty: Observed, Likely, Possible, Unlikely, Unknown"),
  urgency: Nullable.describe("CAP urgency: Immediate, Expected, Future, Past, Unknown"),
  status: Nullable.describe("Actual, Exercise, System, Test, Draft"),
  messageType: Nullable.describe("Alert, Update, Cancel"),
  category: Nullable.describe("CAP category, e.g. Met"),
  response: Nullable.describe("Recommended response, e.g. Shelter, Execute, Monitor"),
  areaDesc: Nullable.describe("Affected areas in words"),
  affectedZones: z.array(z.string()).describe("NWS zone ids, e.g. KSZ035"),
  sent: Timestamp.nullable(),
  effective: Timestamp.nullable(),
  onset: Timestamp.nullable(),
  expires: Timestamp.nullable().describe("When this message expires (a later update may replace it)"),
  ends: Timestamp.nullable().describe("When the hazard is expected to end; null when not given"),
  senderName: Nullable.describe("Issuing office, e.g. NWS Topeka KS"),
  description: Nullable,
  instruction: Nullable,
  hasPolygon: z.boolean().describe("The alert has its own polygon (storm-based); otherwise it is zone-based"),
});

export const AlertsAnswer = z.object({
  ok: z.literal(true),
  state: z.object({ code: z.string().describe("Two-letter code"), name: z.string() }),
  title: Nullable.describe("NWS's title of the list"),
  updated: Timestamp.nullable().describe("When NWS last updated the list"),
  match: z.boolean().describe("True when there is at least one active alert"),
  count: z.number().int().nonnegative(),
  alerts: z.array(AlertSchema).describe("Active alerts, as NWS orders them"),
  message: z.string().optional().describe("Present when there are no active alerts"),
  ...provenance,
});

export const weatherAlertsByState = product({
  sku: "weather.alerts-by-state",
  method: "GET",
  path: "/v1/weather/alerts-by-state",
  summary: "Active NWS weather alerts for a US state or territory, named in full (e.g. Colorado)",
  description:
    "Every active National Weather Service watch, warning and advisory for one state, DC or territory, given by " +
    "its full English name in any case (Colorado, new york, Puerto Rico): event, headline, CAP severity, " +
    "certainty and urgency, areas and zones, times, issuing office, description and instructions. No active " +
    "alert is a 200 with match:false. Cached until NWS's Expires (about a minute).",
  status: "live",
  tags: ["weather", "nws", "noaa", "us", "alerts"],
  price: "0.01",
  query: AlertsQuery,
  answer: AlertsAnswer,
  sample: { state: "Kansas" },
  source: NWS_SOURCE,
  async handle({ query }, ctx) {
    const region = query.state;
    const found = await lookupAlerts(ctx, region.code, new Deadline());
    if (!found.ok) return found.outcome;
    const list = found.doc.body;
    const match = list.alerts.length > 0;
    return ok({
      ok: true as const,
      state: { code: region.code, name: region.name },
      title: list.title,
      updated: list.updated,
      match,
      count: list.alerts.length,
      alerts: list.alerts,
      ...(match ? {} : { message: `NWS has no active alert for ${region.name} right now.` }),
      ...provenanceOf([{ url: nwsUrl(ctx, ALERTS_PATH, { area: region.code }), doc: found.doc }]),
    });
  },
});
