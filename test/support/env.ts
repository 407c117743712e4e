import { env as workerEnv } from "cloudflare:test";
import type { Env } from "../../src/env";

export interface TestEnv extends Env {
  TEST_OWNER_DATABASE_URL: string;
  TEST_DATABASE_KIND: string;
  /** The test run's certification authority (test/global-setup.ts): its certificate is ECF_TRUSTED_CA_PEM. */
  TEST_CA_CERT_PEM: string;
  TEST_CA_KEY_PEM: string;
}

export const env = workerEnv as unknown as TestEnv;
