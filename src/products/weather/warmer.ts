// The weather warmer: keeps the grid point and the 12-hour forecast of the configured locations fresh, asking
// NWS only for forecasts whose Expires has passed, so buyers of popular places are answered from the cache.
import type { Warmer } from "../../catalog/product.ts";
import { cellOf, Deadline, lookupForecast, lookupPoint } from "./lookup.ts";
import type { WeatherSettings } from "./settings.ts";

const WEATHER_WARMER = "weather.forecasts";
const WEATHER_WARM_EVERY_MS = 15 * 60_000;

export function weatherWarmer(settings: WeatherSettings): Warmer {
  return {
    name: WEATHER_WARMER,
    everyMs: WEATHER_WARM_EVERY_MS,
    async run(ctx) {
      let fresh = 0;
      const failed: string[] = [];
      for (const { lat, lon } of settings.warmPoints) {
        // A warmer is not a buyer: it may wait out NWS's slow answers.
        const deadline = new Deadline(30_000);
        const point = await lookupPoint(ctx, lat, lon, deadline);
        const forecast = point.ok
          ? await lookupForecast(ctx, cellOf(point.doc.body), false, deadline)
          : point;
        if (forecast.ok) fresh++;
        else failed.push(`${lat},${lon}`);
      }
      if (settings.warmPoints.length > 0 && failed.length === settings.warmPoints.length) {
        throw new Error(`no forecast could be refreshed: ${failed.join("; ")}`);
      }
      if (failed.length) ctx.log.warn({ failed }, "weather warm: some forecasts were not refreshed");
      return { points: settings.warmPoints.length, fresh, failed: failed.length };
    },
  };
}
