import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";

describe("OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document describing the v1 API", async () => {
    const app = createApp();
    const document = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "Sucursal API", version: "1.0.0" } });
    const result = await new Validator().validate(document as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Object.keys(document.paths ?? {})).toContain("/api/v1/auth/tokens");
  });
});
