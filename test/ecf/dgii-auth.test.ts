import { describe, expect, it } from "vitest";
import { signingMaterial } from "../../src/modules/ecf/certificate";
import { dgiiToken, forgetToken, requestToken } from "../../src/modules/ecf/dgii";
import { makeCertificate } from "../support/certificates";
import { env } from "../support/env";

/**
 * DGII's authentication (Descripción técnica: semilla → validarsemilla → token), against the fake
 * DGII (scripts/fake-dgii.ts), which checks the signed seed with xmldsigjs and Semilla.xsd.
 */
const fake = (env as unknown as { TEST_FAKE_DGII_URL: string }).TEST_FAKE_DGII_URL;
const tokensIssued = async () => ((await (await fetch(`${fake}/_control/tokens`)).json()) as { token: string }[]).length;

describe("DGII authentication", () => {
  it("signs the seed and gets a token; the tenant's token is reused until a minute before it expires, then renewed", async () => {
    const cert = await makeCertificate();
    const material = signingMaterial(cert.p12Base64, cert.password);
    const base = `${fake}/testecf`;
    const before = await tokensIssued();
    const first = await dgiiToken(9001, "testecf", base, material);
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(first.expires.getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(await dgiiToken(9001, "testecf", base, material)).toEqual(first);
    expect(await tokensIssued()).toBe(before + 1);
    // 30 s before expiry (inside the one-minute margin): a new token.
    const later = await dgiiToken(9001, "testecf", base, material, new Date(first.expires.getTime() - 30_000));
    expect(later.token).not.toBe(first.token);
    forgetToken(9001, "testecf", base);
    expect((await dgiiToken(9001, "testecf", base, material)).token).not.toBe(later.token);
    expect(await tokensIssued()).toBe(before + 3);
  });

  it("a seed signed with a key that is not the certificate's is refused by DGII (503 service_unavailable to our caller)", async () => {
    const [a, b] = await Promise.all([makeCertificate(), makeCertificate()]);
    const mixed = { ...signingMaterial(a.p12Base64, a.password), certificatePem: b.certificatePem };
    await expect(requestToken(`${fake}/testecf`, mixed)).rejects.toMatchObject({
      code: "service_unavailable",
      message: expect.stringContaining("La firma del archivo no es válida"),
    });
    await expect(requestToken("http://127.0.0.1:9/testecf", mixed)).rejects.toMatchObject({ code: "service_unavailable" });
  });
});
