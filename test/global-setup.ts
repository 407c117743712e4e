import type { TestProject } from "vitest/node";
import { startFakeDgii } from "../scripts/fake-dgii";
import { startFakeProviders } from "../scripts/fake-providers";
import { makeAuthority } from "../scripts/lib/certificates";
import { createTestDatabase, portAnswers } from "../scripts/lib/database";
import { startSqlHttp } from "../scripts/lib/sql-http";
import { startTestControl } from "../scripts/lib/test-control";
import { startUpstashRelay } from "../scripts/lib/upstash-relay";
import { startWsRelay } from "../scripts/lib/ws-relay";
import { startFileServer } from "../scripts/rnc-file-server";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    ownerDatabaseUrl: string;
    dbSetRole: string;
    dbWsProxy: string;
    /** The local stand-in for Neon's SQL-over-HTTP endpoint (scripts/lib/sql-http.ts): reads' batches. */
    dbHttpEndpoint: string;
    upstashUrl: string;
    upstashToken: string;
    databaseKind: string;
    /** Local stand-in for DGII's file download (PUT /files/<name>, GET /files/<name>, GET /status/<code>). */
    fileServerUrl: string;
    /** Local stand-in for Resend, the Telegram Bot API and Graph (scripts/fake-providers.ts). */
    fakeProvidersUrl: string;
    /** Local stand-in for DGII's e-CF services (scripts/fake-dgii.ts): the base of DGII_ECF_BASE_URL. */
    fakeDgiiUrl: string;
    /** Fault injection and soak records for test/security (scripts/lib/test-control.ts). */
    testControlUrl: string;
    /** A second WebSocket relay to the same Postgres, whose connections the control server cuts. */
    faultWsProxy: string;
    /** A second SQL-over-HTTP endpoint, whose answers the control server can fail (POST /db/http-fault). */
    faultHttpEndpoint: string;
    /** A Postgres URL whose port accepts TCP and never answers. */
    blackholeDatabaseUrl: string;
    /** A second Upstash relay (same Redis) that the control server stops and restarts. */
    faultUpstashUrl: string;
    faultUpstashToken: string;
    /** The run's certification authority, standing in for an INDOTEL-accredited one: trusted by the Worker (ECF_TRUSTED_CA_PEM) and issuing every test certificate. */
    testCaCertPem: string;
    testCaKeyPem: string;
  }
}

/**
 * Runs in Node before the workerd pool starts: a fresh migrated database, the WebSocket relay the
 * Worker reaches it through, and the Upstash relay when Redis answers on 127.0.0.1:6379.
 */
export default async function setup(project: TestProject) {
  const database = await createTestDatabase();
  const relay = await startWsRelay();
  const sqlHttp = await startSqlHttp();
  const fileServer = await startFileServer();
  const fakeProviders = await startFakeProviders();
  const authority = await makeAuthority();
  const fakeDgii = await startFakeDgii({ authority });
  // SUCURSAL_TEST_REDIS=off checks the path of a machine without Redis (in-memory limiter).
  const redisUp = process.env.SUCURSAL_TEST_REDIS !== "off" && (await portAnswers("127.0.0.1", 6379));
  const upstash = redisUp ? await startUpstashRelay() : null;
  const control = await startTestControl({ redisAvailable: upstash !== null, recordsFile: process.env.SUCURSAL_SOAK_RECORDS });
  console.log(
    `[test setup] postgres: ${database.kind} (${database.tcpAddress}); redis: ${upstash ? "127.0.0.1:6379 via the Upstash relay" : "none, in-memory rate limiting"}`,
  );
  project.provide("databaseUrl", database.appUrl);
  project.provide("ownerDatabaseUrl", database.ownerUrl);
  project.provide("dbSetRole", database.setRole ?? "");
  project.provide("dbWsProxy", relay.url);
  project.provide("dbHttpEndpoint", sqlHttp.url);
  project.provide("upstashUrl", upstash?.url ?? "");
  project.provide("upstashToken", upstash?.token ?? "");
  project.provide("databaseKind", database.kind);
  project.provide("fileServerUrl", fileServer.url);
  project.provide("fakeProvidersUrl", fakeProviders.url);
  project.provide("fakeDgiiUrl", fakeDgii.url);
  project.provide("testControlUrl", control.url);
  project.provide("faultWsProxy", control.faultWsProxy);
  project.provide("faultHttpEndpoint", control.faultHttpEndpoint);
  project.provide("blackholeDatabaseUrl", control.blackholeUrl);
  project.provide("faultUpstashUrl", control.faultUpstashUrl);
  project.provide("faultUpstashToken", control.faultUpstashToken);
  project.provide("testCaCertPem", authority.certificatePem);
  project.provide("testCaKeyPem", authority.privateKeyPem);
  return async () => {
    await control.close();
    await upstash?.close();
    await relay.close();
    await sqlHttp.close();
    await fileServer.close();
    await fakeProviders.close();
    await fakeDgii.close();
    await database.stop();
  };
}
