import { defineConfig } from "drizzle-kit";

// Migrations are generated from src/db/schema and applied by scripts/lib/migrate.ts as the
// database owner (tests, `npm run dev`, `npm run db:migrate`).
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema/index.ts",
  out: "./drizzle",
  dbCredentials: { url: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres" },
});
