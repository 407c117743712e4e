import { expect } from "vitest";
import type { Client } from "./api";
import { uniqueName } from "./seed";

/** The ids of what a new tenant gets: default taxes and subtypes, by name. */
export async function catalogIds(api: Client) {
  const taxes = (await api.get("/taxes?per_page=100")).body.data as { id: number; name: string; type: string }[];
  const subtypes = (await api.get("/document-subtypes?per_page=100")).body.data as { id: number; prefix: string; type: string }[];
  const tax = (name: string) => taxes.find((t) => t.name === name)!.id;
  const subtype = (prefix: string) => subtypes.find((s) => s.prefix === prefix)!.id;
  return { itbis18: tax("ITBIS 18%"), itbis16: tax("ITBIS 16%"), exento: tax("Exento"), propina: tax("Propina Legal 10%"), b01: subtype("B01"), b02: subtype("B02"), cot: subtype("COT") };
}

export async function createContact(api: Client, overrides: Record<string, unknown> = {}) {
  const res = await api.post("/contacts", { name: uniqueName("Cliente "), email: `${uniqueName("c")}@cliente.do`, phone: "809-555-0101", ...overrides });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { id: number; name: string; email: string | null };
}
