// The mountain family's tables, with Kysely's schema builder only (SQLite now, PostgreSQL later).
// Coordinates and prices are "double precision": PostgreSQL's "real" is a 4-byte float.
import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

const stamp = (table: ReturnType<Kysely<unknown>["schema"]["createTable"]>) =>
  table
    .addColumn("sample", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("updated_at", "text", (c) => c.notNull());

export const mountainMigrations: Record<string, Migration> = {
  "0100_mountain_tables": {
    async up(db: Kysely<unknown>) {
      await stamp(
        db.schema
          .createTable("mountain_areas")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("name", "text", (c) => c.notNull())
          .addColumn("country", "text", (c) => c.notNull())
          .addColumn("region", "text", (c) => c.notNull())
          .addColumn("currency", "text", (c) => c.notNull())
          .addColumn("south", "double precision", (c) => c.notNull())
          .addColumn("west", "double precision", (c) => c.notNull())
          .addColumn("north", "double precision", (c) => c.notNull())
          .addColumn("east", "double precision", (c) => c.notNull()),
      ).execute();

      await stamp(
        db.schema
          .createTable("mountain_resorts")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("name", "text", (c) => c.notNull())
          .addColumn("country", "text", (c) => c.notNull())
          .addColumn("region", "text", (c) => c.notNull())
          .addColumn("state", "text")
          .addColumn("area", "text")
          .addColumn("operator", "text", (c) => c.notNull())
          .addColumn("official_site", "text", (c) => c.notNull())
          .addColumn("booking_url", "text", (c) => c.notNull())
          .addColumn("price_list_url", "text", (c) => c.notNull())
          .addColumn("currency", "text", (c) => c.notNull())
          .addColumn("lat", "double precision", (c) => c.notNull())
          .addColumn("lon", "double precision", (c) => c.notNull())
          .addColumn("location", "text", (c) => c.notNull())
          .addColumn("location_name", "text", (c) => c.notNull()),
      ).execute();
      await db.schema
        .createIndex("mountain_resorts_country")
        .on("mountain_resorts")
        .column("country")
        .execute();

      await stamp(
        db.schema
          .createTable("mountain_ticket_prices")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("resort_id", "text", (c) => c.notNull())
          .addColumn("season", "text", (c) => c.notNull())
          .addColumn("season_band", "text", (c) => c.notNull())
          .addColumn("band_dates", "text", (c) => c.notNull())
          .addColumn("ticket_type", "text", (c) => c.notNull())
          .addColumn("age_band", "text", (c) => c.notNull())
          .addColumn("age_range", "text")
          .addColumn("price", "double precision", (c) => c.notNull())
          .addColumn("currency", "text", (c) => c.notNull())
          .addColumn("source_url", "text", (c) => c.notNull())
          .addColumn("collected_at", "text", (c) => c.notNull()),
      ).execute();
      await db.schema
        .createIndex("mountain_ticket_prices_resort")
        .on("mountain_ticket_prices")
        .column("resort_id")
        .execute();

      await stamp(
        db.schema
          .createTable("mountain_menus")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("meal_periods", "text", (c) => c.notNull())
          .addColumn("source_kind", "text", (c) => c.notNull())
          .addColumn("source_app", "text")
          .addColumn("source_url", "text", (c) => c.notNull())
          .addColumn("menu_type", "text", (c) => c.notNull())
          .addColumn("menu_date", "text", (c) => c.notNull())
          .addColumn("collected_at", "text", (c) => c.notNull())
          .addColumn("currency", "text", (c) => c.notNull()),
      ).execute();

      await stamp(
        db.schema
          .createTable("mountain_menu_items")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("menu_id", "text", (c) => c.notNull())
          .addColumn("position", "integer", (c) => c.notNull())
          .addColumn("name", "text", (c) => c.notNull())
          .addColumn("price", "double precision", (c) => c.notNull())
          .addColumn("currency", "text", (c) => c.notNull())
          .addColumn("category", "text")
          .addColumn("portion", "text"),
      ).execute();
      await db.schema
        .createIndex("mountain_menu_items_menu")
        .on("mountain_menu_items")
        .column("menu_id")
        .execute();

      await stamp(
        db.schema
          .createTable("mountain_corridors")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("name", "text", (c) => c.notNull())
          .addColumn("country", "text", (c) => c.notNull())
          .addColumn("region", "text", (c) => c.notNull())
          .addColumn("description", "text")
          .addColumn("path", "text", (c) => c.notNull())
          .addColumn("buffer_km", "double precision", (c) => c.notNull())
          .addColumn("resorts", "text", (c) => c.notNull()),
      ).execute();

      await stamp(
        db.schema
          .createTable("mountain_insider_tips")
          .addColumn("id", "text", (c) => c.primaryKey())
          .addColumn("resort_id", "text")
          .addColumn("country", "text", (c) => c.notNull())
          .addColumn("date", "text", (c) => c.notNull())
          .addColumn("valid_until", "text")
          .addColumn("language", "text", (c) => c.notNull())
          .addColumn("kind", "text", (c) => c.notNull())
          .addColumn("title", "text")
          .addColumn("text", "text", (c) => c.notNull())
          .addColumn("source_url", "text"),
      ).execute();

      await db.schema
        .createTable("mountain_osm_places")
        .addColumn("target", "text", (c) => c.notNull())
        .addColumn("id", "text", (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("cuisine", "text")
        .addColumn("address", "text")
        .addColumn("lat", "double precision", (c) => c.notNull())
        .addColumn("lon", "double precision", (c) => c.notNull())
        .addColumn("hours", "text")
        .addColumn("phone", "text")
        .addColumn("website", "text")
        .addColumn("country", "text", (c) => c.notNull())
        .addColumn("area", "text", (c) => c.notNull())
        .addColumn("currency", "text", (c) => c.notNull())
        .addColumn("fetched_at", "text", (c) => c.notNull())
        .addColumn("recorded_sample", "integer", (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint("mountain_osm_places_pk", ["target", "id"])
        .execute();
      await db.schema.createIndex("mountain_osm_places_id").on("mountain_osm_places").column("id").execute();

      await db.schema
        .createTable("mountain_osm_targets")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("ref", "text", (c) => c.notNull())
        .addColumn("attempted_at", "text")
        .addColumn("fetched_at", "text")
        .addColumn("error", "text")
        .addColumn("error_at", "text")
        .addColumn("places", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("recorded_sample", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("source_url", "text")
        .execute();
    },
  },
};
