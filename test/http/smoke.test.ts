import { describe, expect, it } from "vitest";
import { seedTenant } from "../support/seed";

describe("smoke", () => {
  it("answers /me for a seeded admin", async () => {
    const tenant = await seedTenant();
    const res = await tenant.api.get("/me");
    expect(res.status).toBe(200);
    expect(res.body.data.email).toBe(tenant.admin.email);
  });
});
