import { defineConfig } from "drizzle-kit";

// Migrations are generated from src/db/schema and applied as the database owner: by
// runMigrations (scripts/lib/database.ts) for the tests and `npm run dev`, and in production with
// `npx drizzle-kit migrate` (docs/operations.md).
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema/index.ts",
  out: "./drizzle",
  dbCredentials: { url: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres" },
});
