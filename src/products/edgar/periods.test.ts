import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  dateOfDay,
  dayNumber,
  durationKind,
  nearestQuarter,
  nearestYear,
  quarterLabel,
  yearOfDay,
} from "./periods.ts";

const quarterOf = (date: string) => quarterLabel(nearestQuarter(dayNumber(date)));
const yearOf = (date: string) => `CY${nearestYear(dayNumber(date))}`;
const days = (start: string, end: string) => dayNumber(end) - dayNumber(start) + 1;

describe("calendar periods of XBRL facts", () => {
  it("maps instants to the nearest calendar quarter end, as SEC frames them", () => {
    // The examples SEC's own frames show.
    assert.equal(quarterOf("2012-01-31"), "CY2011Q4");
    assert.equal(quarterOf("2011-07-31"), "CY2011Q2");
    assert.equal(quarterOf("2012-07-16"), "CY2012Q2");
    assert.equal(quarterOf("2024-09-28"), "CY2024Q3");
    assert.equal(quarterOf("2024-12-28"), "CY2024Q4");
    assert.equal(quarterOf("2025-01-17"), "CY2024Q4");
    assert.equal(quarterOf("2018-04-01"), "CY2018Q1");
    assert.equal(quarterOf("2016-01-03"), "CY2015Q4");
  });

  it("maps fiscal years to the calendar year whose end is nearest their end", () => {
    assert.equal(yearOf("2024-09-28"), "CY2024"); // September year end
    assert.equal(yearOf("2024-06-30"), "CY2023"); // June year end: 182 days after 2023-12-31, 184 before 2024-12-31
    assert.equal(yearOf("2025-06-30"), "CY2024");
    assert.equal(yearOf("2024-02-03"), "CY2023"); // a retailer's year ending in early February
    assert.equal(yearOf("2016-01-03"), "CY2015"); // a 53-week year running into January
    assert.equal(yearOf("2018-12-30"), "CY2018");
  });

  it("classifies durations by length with SEC's ±30 days", () => {
    assert.equal(durationKind(days("2024-09-29", "2024-12-28")), "quarter");
    assert.equal(durationKind(days("2024-09-29", "2025-03-29")), "half");
    assert.equal(durationKind(days("2024-09-29", "2025-06-28")), "nineMonths");
    assert.equal(durationKind(days("2023-10-01", "2024-09-28")), "annual"); // 52 weeks
    assert.equal(durationKind(days("2014-12-29", "2016-01-03")), "annual"); // 53 weeks
    assert.equal(durationKind(days("2024-01-01", "2024-01-31")), "other");
    assert.equal(durationKind(days("2023-01-01", "2024-12-31")), "other");
  });

  it("counts days like the calendar does, and refuses what is not a date", () => {
    for (let day = dayNumber("1960-01-01"); day <= dayNumber("2040-12-31"); day++) {
      const date = dateOfDay(day);
      assert.equal(dayNumber(date), Date.parse(`${date}T00:00:00Z`) / 86_400_000, date);
      assert.equal(yearOfDay(day), Number(date.slice(0, 4)), date);
    }
    for (const raw of [
      "",
      "2024-1-01",
      "2024/01/01",
      "2024-13-01",
      "2024-00-10",
      "20x4-01-01",
      "2024-01-01T00",
    ])
      assert.ok(Number.isNaN(dayNumber(raw)), raw);
  });
});
