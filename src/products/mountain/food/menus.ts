// Menus on file, read for a set of restaurants.
import type { HandlerContext } from "../../../catalog/product.ts";
import { type MenuItemTable, type MenuTable, mountainDb } from "../data/schema.ts";
import { compareItems } from "../data/views.ts";

interface MenuWithItems {
  menu: MenuTable;
  items: MenuItemTable[];
}

export async function menusFor(
  ctx: HandlerContext,
  restaurantIds: string[],
): Promise<Map<string, MenuWithItems>> {
  const db = mountainDb(ctx.store);
  const result = new Map<string, MenuWithItems>();
  for (let i = 0; i < restaurantIds.length; i += 500) {
    const ids = restaurantIds.slice(i, i + 500);
    const [menus, items] = await Promise.all([
      db.selectFrom("mountain_menus").selectAll().where("id", "in", ids).execute(),
      db.selectFrom("mountain_menu_items").selectAll().where("menu_id", "in", ids).execute(),
    ]);
    for (const menu of menus) result.set(menu.id, { menu, items: [] });
    for (const item of items) result.get(item.menu_id)?.items.push(item);
  }
  for (const entry of result.values()) entry.items.sort(compareItems);
  // Only restaurants with menu items have a menu.
  for (const [id, entry] of result) if (entry.items.length === 0) result.delete(id);
  return result;
}
