import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { errorStatus } from "../../src/http/errors";
import { WEBHOOK_EVENT_TYPES } from "../../src/modules/webhooks/schemas";

describe("OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document describing the v1 API", async () => {
    const app = createApp();
    const document = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "Sucursal API", version: "1.0.0" } });
    const result = await new Validator().validate(document as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Object.keys(document.paths ?? {})).toContain("/api/v1/auth/tokens");
  });

  it("describes every webhook event in its webhooks section: the signed headers and the body with the resource", () => {
    const document = createApp().getOpenAPI31Document({ openapi: "3.1.0", info: { title: "Sucursal API", version: "1.0.0" } });
    const webhooks = document.webhooks ?? {};
    expect(Object.keys(webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    for (const type of WEBHOOK_EVENT_TYPES) {
      const post = (webhooks[type] as { post: { parameters: { name: string; in: string }[]; requestBody: { content: Record<string, { schema: unknown }> } } })
        .post;
      expect(post.parameters.filter((p) => p.in === "header").map((p) => p.name)).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
      const body = post.requestBody.content["application/json"]!.schema as { properties: Record<string, unknown> };
      expect(Object.keys(body.properties)).toEqual(["id", "type", "created_at", "data"]);
      expect(body.properties.type).toEqual({ type: "string", enum: [type] });
    }
    const invoiceData = (
      webhooks["invoice.created"] as { post: { requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> } } }
    ).post.requestBody.content["application/json"]!.schema.properties.data;
    expect(invoiceData).toEqual({ $ref: "#/components/schemas/Invoice" });
  });

  it("lists every error code the source answers with, each with its status", () => {
    const document = createApp().getOpenAPI31Document({ openapi: "3.1.0", info: { title: "Sucursal API", version: "1.0.0" } });
    const schemas = document.components?.schemas ?? {};
    const code = (schemas.Error as { properties: { code: { enum: string[]; description: string } } }).properties.code;
    expect(code.enum).toEqual(Object.keys(errorStatus));
    expect(code.description).toContain("ecf_already_sent (409)");
    // Codes written as literals in an error body `{ message, code }` (outside AppError, whose type holds them to the catalog).
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
    const literals = new Set<string>();
    for (const file of files(path.resolve(__dirname, "../../src")).filter((f) => f.endsWith(".ts"))) {
      for (const match of readFileSync(file, "utf8").matchAll(/\bmessage:[^{}]*?\bcode: "([a-z_]+)"/g)) literals.add(match[1]!);
    }
    expect(literals.size).toBeGreaterThan(2);
    expect([...literals].filter((literal) => !(literal in errorStatus))).toEqual([]);
  });
});
