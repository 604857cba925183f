// GET /v1/food/menu: one restaurant's full menu with prices, from the curated menus, and its OSM fields.
import { z } from "zod";
import { type HandlerContext, notFound, ok, product } from "../../../catalog/product.ts";
import { RESTAURANT_ID } from "../data/records.ts";
import { isError } from "../data/resorts.ts";
import { ensureSampleData } from "../data/sample-data.ts";
import { MenuItemBody, MenuSource, menuItemView, menuSourceView, newest } from "../data/views.ts";
import { placeCatalog, placeDetails } from "../osm/place-catalog.ts";
import { foodNotice, OSM_SOURCE } from "../shared/notice.ts";
import { menusFor } from "./menus.ts";
import { Restaurant, toRestaurant } from "./restaurant.ts";
import { isFetched, queueAndWait, refusedBeforePayment, targetsWithState } from "./targets-state.ts";

const FoodMenuQuery = z.object({
  restaurantId: z
    .string({ error: "is required: a restaurant id such as osm-node-123456 (from /v1/food/near)" })
    .trim()
    .regex(RESTAURANT_ID, { error: "must be a restaurant id such as osm-node-123456" })
    .describe("Restaurant id from /v1/food/near, /v1/food/venues or /v1/food/near-resort"),
});

export const FoodMenuAnswer = Restaurant.extend({
  mealPeriods: z.array(z.string()),
  menuSource: MenuSource,
  menuItems: z.array(MenuItemBody),
  fetchedAt: z.iso.datetime().describe("When the OSM place was fetched"),
  updatedAt: z.iso.datetime().describe("When the menu was last imported"),
  notice: z.string(),
});

async function resolve(restaurantId: string, ctx: HandlerContext) {
  await ensureSampleData(ctx);
  const menu = (await menusFor(ctx, [restaurantId])).get(restaurantId);
  if (!menu)
    return notFound(
      `No menu is on file for ${restaurantId}; only restaurants whose menuItemCount is above 0 have a menu.`,
    );
  const place = (await placeDetails(ctx, await placeCatalog(ctx), [restaurantId])).get(restaurantId);
  if (!place) {
    const waiting = (await targetsWithState(ctx)).filter((t) => !isFetched(t));
    if (waiting.length > 0)
      return queueAndWait(ctx, waiting, { subject: `Restaurant ${restaurantId}`, plural: false });
    return notFound(
      `Restaurant ${restaurantId} has a menu on file but is not among the cached OpenStreetMap places.`,
    );
  }
  return { menu, place };
}

export const foodMenu = product({
  sku: "food.menu",
  method: "GET",
  path: "/v1/food/menu",
  summary: "Full menu with prices of one restaurant near a ski area",
  description:
    "One restaurant's OpenStreetMap fields with its full menu: meal periods, the menu's source (the restaurant's own " +
    "website or a delivery app, with URL, menu type, menu date and collection date) and every item with price, " +
    "currency, category and portion. Only restaurants with menuItemCount > 0 have a menu; others answer 404, not charged.",
  status: "live",
  tags: ["food", "mountain"],
  price: "0.01",
  query: FoodMenuQuery,
  answer: FoodMenuAnswer,
  sample: { restaurantId: "osm-node-900000000001" },
  source: OSM_SOURCE,

  async check({ query }, ctx) {
    const resolved = await resolve(query.restaurantId, ctx);
    return refusedBeforePayment(resolved);
  },

  async handle({ query }, ctx) {
    const resolved = await resolve(query.restaurantId, ctx);
    if (isError(resolved)) return resolved;
    const { menu, place } = resolved;
    const sample = place.recordedSample || Number(menu.menu.sample) === 1;
    return ok({
      ...toRestaurant({ ...place, menuItemCount: menu.items.length }),
      mealPeriods: JSON.parse(menu.menu.meal_periods) as string[],
      menuSource: menuSourceView(menu.menu),
      menuItems: menu.items.map(menuItemView),
      fetchedAt: place.fetchedAt,
      updatedAt: newest([menu.menu.updated_at, ...menu.items.map((i) => i.updated_at)])!,
      notice: foodNotice(sample),
    });
  },
});
