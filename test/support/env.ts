import { env as workerEnv } from "cloudflare:test";
import type { Env } from "../../src/env";

export interface TestEnv extends Env {
  TEST_OWNER_DATABASE_URL: string;
  TEST_DATABASE_KIND: string;
}

export const env = workerEnv as unknown as TestEnv;
