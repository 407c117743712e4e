import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export const TEST_JWT_SECRET = "test-jwt-secret-of-at-least-thirty-two-chars";

export default defineConfig({
  plugins: [
    cloudflareTest(async ({ inject }) => ({
      main: "./src/index.ts",
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          DATABASE_URL: inject("databaseUrl"),
          TEST_OWNER_DATABASE_URL: inject("ownerDatabaseUrl"),
          DB_SET_ROLE: inject("dbSetRole"),
          DB_WS_PROXY: inject("dbWsProxy"),
          UPSTASH_REDIS_REST_URL: inject("upstashUrl"),
          UPSTASH_REDIS_REST_TOKEN: inject("upstashToken"),
          TEST_DATABASE_KIND: inject("databaseKind"),
          JWT_SECRET: TEST_JWT_SECRET,
          APP_URL: "https://app.sucursal.test",
        },
      },
    })),
  ],
  test: {
    globalSetup: ["./test/global-setup.ts"],
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
