import path from "node:path";
import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { testWranglerConfig } from "./test/support/wrangler-config.ts";

const TEST_JWT_SECRET = "test-jwt-secret-of-at-least-thirty-two-chars";
// 32 bytes, base64: the AES-GCM key of integration secrets in tests.
const TEST_ENCRYPTION_KEY = "dGVzdC1lbmNyeXB0aW9uLWtleS0zMi1ieXRlcy0hISE=";

export default defineConfig({
  test: {
    // Two test files at a time (vitest's default on 2 CPUs is one): a file spends much of its time
    // waiting on Postgres, the fakes and its Worker's queue; each runner has its own Worker
    // (miniflare, queues included) and each test its own tenants. Measured in docs/reliability.md.
    maxWorkers: 2,
    projects: [
      {
        // The API, inside workerd, through the Worker's real fetch handler.
        plugins: [
          cloudflareTest(async ({ inject }) => ({
            main: "./src/index.ts",
            // wrangler.toml, from a folder without the developer's .dev.vars or .env (test/support/wrangler-config.ts).
            wrangler: { configPath: testWranglerConfig(path.dirname(fileURLToPath(import.meta.url))) },
            miniflare: {
              // wrangler.toml's consumers, flushed at once: miniflare holds a batch that is not full
              // for max_batch_timeout (1 s) before delivering it, a second a test would wait per hop.
              queueConsumers: {
                outbox: { maxBatchSize: 10, maxBatchTimeout: 0, maxRetries: 10 },
                ecf: { maxBatchSize: 10, maxBatchTimeout: 0, maxRetries: 10 },
                "rnc-sync": { maxBatchSize: 1, maxBatchTimeout: 0, maxRetries: 5 },
              },
              bindings: {
                DATABASE_URL: inject("databaseUrl"),
                TEST_OWNER_DATABASE_URL: inject("ownerDatabaseUrl"),
                DB_SET_ROLE: inject("dbSetRole"),
                DB_WS_PROXY: inject("dbWsProxy"),
                DB_HTTP_ENDPOINT: inject("dbHttpEndpoint"),
                UPSTASH_REDIS_REST_URL: inject("upstashUrl"),
                UPSTASH_REDIS_REST_TOKEN: inject("upstashToken"),
                TEST_DATABASE_KIND: inject("databaseKind"),
                TEST_FILE_SERVER_URL: inject("fileServerUrl"),
                TAX_AUTHORITY_DATA_URL: `${inject("fileServerUrl")}/files/DGII_RNC.zip`,
                JWT_SECRET: TEST_JWT_SECRET,
                // Every run has a fresh database whose ids restart at 1, but Redis is shared.
                RATE_LIMIT_NAMESPACE: `test-${Date.now()}-${process.pid}`,
                APP_URL: "https://app.sucursal.test",
                // Integrations talk to the local fake providers (scripts/fake-providers.ts).
                TEST_FAKE_PROVIDERS_URL: inject("fakeProvidersUrl"),
                RESEND_BASE_URL: `${inject("fakeProvidersUrl")}/resend`,
                TELEGRAM_API_BASE: `${inject("fakeProvidersUrl")}/telegram`,
                GRAPH_API_BASE: `${inject("fakeProvidersUrl")}/graph/v21.0`,
                RESEND_API_KEY: "re_test_key",
                DGII_ECF_BASE_URL: inject("fakeDgiiUrl"),
                DGII_FC_BASE_URL: inject("fakeDgiiUrl"),
                // DGII's status service: the fake's; no API key, so the sweep is off unless a test turns it on.
                DGII_STATUS_BASE_URL: inject("fakeDgiiUrl"),
                DGII_STATUS_API_KEY: "",
                TEST_FAKE_DGII_URL: inject("fakeDgiiUrl"),
                APP_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
                // The run's certification authority (test/global-setup.ts): the only one the receiver trusts.
                ECF_TRUSTED_CA_PEM: inject("testCaCertPem"),
                TEST_CA_CERT_PEM: inject("testCaCertPem"),
                TEST_CA_KEY_PEM: inject("testCaKeyPem"),
                // Webhook endpoints point at the fake receiver on loopback (scripts/fake-providers.ts).
                WEBHOOKS_ALLOW_HTTP_LOOPBACK: "true",
                WEBHOOKS_DNS_RESOLVER_URL: `${inject("fakeProvidersUrl")}/dns-query`,
                // Reliability suites (test/security): fault injection, and `npm run soak` sizes.
                TEST_CONTROL_URL: inject("testControlUrl"),
                TEST_FAULT_WS_PROXY: inject("faultWsProxy"),
                TEST_FAULT_HTTP_ENDPOINT: inject("faultHttpEndpoint"),
                TEST_BLACKHOLE_DATABASE_URL: inject("blackholeDatabaseUrl"),
                TEST_FAULT_UPSTASH_URL: inject("faultUpstashUrl"),
                TEST_FAULT_UPSTASH_TOKEN: inject("faultUpstashToken"),
                TEST_SOAK: process.env.SUCURSAL_SOAK ?? "",
              },
            },
          })),
        ],
        test: {
          name: "workers",
          // One Worker per runner, reused by every file it runs, instead of a new workerd and a new
          // import of the app for each file (~5 s each; docs/reliability.md, "Test time"). Tests
          // keep to their own tenants and leave no module state behind (CONTRIBUTING.md).
          isolate: false,
          // Vite pre-bundles the ESM libraries the app imports, one module each instead of hundreds:
          // each test file's Worker fetches every module of the app from this process one round trip
          // at a time, and that was most of a file's ~5 s start (docs/reliability.md, "Test time").
          // The CommonJS ones that need Node built-ins (node-forge, xml-crypto, xmldom) cannot be
          // pre-bundled; swagger-ui-dist's files are Text modules, not code.
          deps: {
            optimizer: {
              ssr: {
                enabled: true,
                exclude: ["swagger-ui-dist"],
                include: [
                  "zod",
                  "hono",
                  "hono/factory",
                  "hono/utils/http-status",
                  "hono/utils/url",
                  "hono/route",
                  "hono/http-exception",
                  "hono/body-limit",
                  "@hono/zod-openapi",
                  "drizzle-orm",
                  "drizzle-orm/pg-core",
                  "drizzle-orm/neon-serverless",
                  "@neondatabase/serverless",
                  "jose",
                  "@upstash/redis/cloudflare",
                  "@upstash/ratelimit",
                  "resend",
                  "fflate",
                  "client-zip",
                  "uqr",
                  "standardwebhooks",
                  "pdf-lib",
                ],
              },
            },
          },
          globalSetup: ["./test/global-setup.ts"],
          include: ["test/**/*.test.ts"],
          exclude: ["test/node/**"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Static checks that need Node (a JSON-schema compiler; reading docs/permissions.md).
        // testTimeout as the workers project's: some render and rasterize a dozen PDFs (ecf-qr), slow on a busy 2-CPU machine.
        test: {
          name: "node",
          environment: "node",
          include: ["test/node/**/*.test.ts"],
          testTimeout: 30_000,
          // One process for the Node files, not a fork each: 78 s against 95 s for this project alone
          // (user CPU 113 s against 138 s). They change no process state (no env, no cwd).
          isolate: false,
        },
      },
    ],
  },
});
