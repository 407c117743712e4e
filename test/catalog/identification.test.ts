import { describe, expect, it } from "vitest";
import { seedTenant } from "../support/seed";

/** Identification checks, through POST /contacts (each number in a fresh contact). */
describe("contact identification numbers", () => {
  it("accepts valid RNCs and cédulas with spaces and dashes, storing digits", async () => {
    const t = await seedTenant();
    const valid: [string, string, string][] = [
      ["rnc", "131246796", "131246796"],
      ["rnc", "1-01-85004-3", "101850043"],
      ["rnc", " 4 0212345 5 ", "402123455"],
      ["cedula", "00113918205", "00113918205"],
      ["cedula", "224-0002211-1", "22400022111"],
      ["cedula", "402 0012345 9", "40200123459"],
    ];
    for (const [type, input, stored] of valid) {
      const res = await t.api.post("/contacts", { name: `C ${input}`, identification_type: type, identification: input });
      expect(res.status, input).toBe(201);
      expect(res.body.data.identification).toBe(stored);
    }
  });

  it("refuses wrong check digits, lengths and characters with 422 on identification", async () => {
    const t = await seedTenant();
    const invalid: [string, string, string][] = [
      ["rnc", "131246797", "This RNC has an invalid check digit."],
      ["rnc", "101850042", "This RNC has an invalid check digit."],
      ["rnc", "13124679", "An RNC has 9 digits."],
      ["rnc", "1312467960", "An RNC has 9 digits."],
      ["rnc", "1018A0043", "An RNC has 9 digits."],
      ["rnc", "00113918205", "An RNC has 9 digits."],
      ["cedula", "00113918204", "This cédula has an invalid check digit."],
      ["cedula", "22400022112", "This cédula has an invalid check digit."],
      ["cedula", "0011391820A", "A cédula has 11 digits."],
      ["cedula", "131246796", "A cédula has 11 digits."],
      ["cedula", "001.1391820.5", "A cédula has 11 digits."],
    ];
    for (const [type, input, message] of invalid) {
      const res = await t.api.post("/contacts", { name: "X", identification_type: type, identification: input });
      expect(res.status, input).toBe(422);
      expect(res.body.code).toBe("validation_failed");
      expect(res.body.errors, input).toEqual({ identification: [message] });
    }
  });

  it("accepts the numbers DGII issued that fail their check digit (python-stdnum's exception lists)", async () => {
    const t = await seedTenant();
    const exceptions: [string, string, string][] = [
      ["rnc", "101581601", "101581601"],
      ["rnc", "5-01-34160-1", "501341601"],
      ["rnc", "505038691", "505038691"],
      ["rnc", "10233317", "10233317"],
      ["cedula", "00000021249", "00000021249"],
      ["cedula", "001-0000016-9", "00100000169"],
      ["cedula", "90001200901", "90001200901"],
      ["cedula", "0094662667", "0094662667"],
    ];
    for (const [type, input, stored] of exceptions) {
      const res = await t.api.post("/contacts", { name: `E ${input}`, identification_type: type, identification: input });
      expect(res.status, input).toBe(201);
      expect(res.body.data.identification).toBe(stored);
    }
    // Neighbours of exceptions still need a valid check digit.
    const neighbour = await t.api.post("/contacts", { name: "N", identification_type: "rnc", identification: "101581602" });
    expect(neighbour.status).toBe(422);
    expect(neighbour.body.errors).toEqual({ identification: ["This RNC has an invalid check digit."] });
  });
});
