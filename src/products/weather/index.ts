// The weather family: US forecasts, observations and alerts from the National Weather Service API
// (api.weather.gov), cached by point, grid cell, station and state until NWS's Expires, fetched live on a miss.
import path from "node:path";
import type { AnyProduct, FamilyFactory } from "../../catalog/product.ts";
import { weatherAlertsByState } from "./alerts.ts";
import { weatherForecast, weatherForecastHourly, weatherNoaa, weatherPoint } from "./forecast.ts";
import { weatherObservation } from "./observation.ts";
import { weatherPreflight } from "./preflight.ts";
import { readWeatherSettings } from "./settings.ts";
import { weatherCoverage, weatherSchema, weatherStatus } from "./status.ts";
import { weatherWarmer } from "./warmer.ts";

export const WEATHER_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");

export const weatherFamily: FamilyFactory = (config) => {
  const settings = readWeatherSettings(config.env);
  const paid: AnyProduct[] = [
    weatherNoaa,
    weatherPoint,
    weatherForecast,
    weatherForecastHourly,
    weatherObservation,
    weatherAlertsByState,
  ];
  return {
    name: "weather",
    preflight: weatherPreflight,
    products: [...paid, weatherStatus(settings), weatherCoverage, weatherSchema(() => paid)],
    warmers: [weatherWarmer(settings)],
    recordingsDir: WEATHER_RECORDINGS_DIR,
  };
};
