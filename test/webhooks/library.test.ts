import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";

// The Standard Webhooks library signs our deliveries (src/jobs/webhooks.ts); this checks it runs in workerd.
describe("standardwebhooks in workerd", () => {
  it("signs and verifies a payload with a whsec_ secret, and refuses a tampered one", () => {
    const secret = `whsec_${btoa("0123456789abcdef0123456789abcdef")}`;
    const hook = new Webhook(secret);
    const timestamp = new Date();
    const payload = JSON.stringify({ type: "invoice.created" });
    const signature = hook.sign("evt_1", timestamp, payload);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    const headers = { "webhook-id": "evt_1", "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)), "webhook-signature": signature };
    expect(hook.verify(payload, headers)).toEqual({ type: "invoice.created" });
    expect(() => hook.verify(payload.replace("created", "paid"), headers)).toThrow();
  });
});
