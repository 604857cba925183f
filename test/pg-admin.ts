// Creating and dropping scratch databases: PAYCALL_PG_ADMIN_URL names a server and a role that may create them
// (default: local trust auth).
import pg from "pg";

export const pgAdminUrl = process.env.PAYCALL_PG_ADMIN_URL || "postgres://postgres@127.0.0.1:5432/postgres";

/** Runs one statement (create or drop database) as the admin role. */
export async function pgAdmin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: pgAdminUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
