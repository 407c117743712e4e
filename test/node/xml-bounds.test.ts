import { describe, expect, it } from "vitest";
import { MAX_RECEIVER_BODY_BYTES } from "../../src/http/request-checks";
import { UNTRUSTED_XML_BOUNDS, xmlBoundsProblem } from "../../src/lib/xml-bounds";
import { parseUntrustedXml } from "../../src/modules/ecf/signature";
import { sign, validate } from "../support/dgii-xsd";
import { type CostliestShape, costliestEcf, ITEM_ELEMENTS, SIGNATURE_ROOM } from "../support/ecf-costliest";
import { verifyIndependently } from "../support/independent-signature";

/**
 * The bound on elements (src/lib/xml-bounds.ts maxElements) against what it exists for: it must let
 * through every e-CF DGII's schema accepts within the receiver's body cap (768 KiB), and refuse a
 * crowd of empty elements beyond it. The costliest valid e-CF is built in
 * test/support/ecf-costliest.ts and judged by DGII's e-CF-33.xsd (libxml2; our own definitions of
 * it where ../shared/dgii is absent, held equal to DGII's by formats-conformance.test.ts). Its CPU
 * beside the crowd's is `npm run bench:hostile-xml`.
 */
const elementsIn = (xml: string) => parseUntrustedXml(xml).getElementsByTagName("*").length;

describe("the bound on elements (xml-bounds maxElements)", { timeout: 120_000 }, () => {
  it.each<[CostliestShape, number]>([
    ["every-optional-element", 21_000],
    ["most-elements", 37_000],
  ])(
    "DGII's costliest E33 within the cap (%s), signed, is valid against e-CF-33.xsd, fits 768 KiB, and passes the bounds: a maxElements under its count refuses it",
    async (shape, atLeast) => {
      const built = costliestEcf(shape);
      const signed = (await sign(built.xml)).xml;
      const bytes = Buffer.byteLength(signed);
      expect(bytes).toBeLessThanOrEqual(MAX_RECEIVER_BODY_BYTES);
      // At the cap: the next Item (6 KB at most) would not have fit.
      expect(bytes).toBeGreaterThan(MAX_RECEIVER_BODY_BYTES - SIGNATURE_ROOM - 6 * 1024);
      expect(await validate(signed, "e-CF-33.xsd")).toEqual({ valid: true, errors: [] });
      // Signed as DGII would check it: by a verifier that is not the code that signed it.
      expect(await verifyIndependently(signed)).toBe(true);
      // And at the schema's maxOccurs: one more of a repeating element is refused.
      const oneMore =
        shape === "every-optional-element"
          ? built.xml.replace("</TablaSubDescuento>", "<SubDescuento><TipoSubDescuento>%</TipoSubDescuento></SubDescuento></TablaSubDescuento>")
          : built.xml.replace("</Paginacion>", "<Pagina/></Paginacion>");
      const refused = await validate((await sign(oneMore)).xml, "e-CF-33.xsd");
      expect(refused.valid).toBe(false);
      expect(refused.errors.join("\n")).toContain(shape === "every-optional-element" ? "SubDescuento" : "Pagina");

      const elements = elementsIn(signed);
      expect(elements).toBe(built.elements + 13); // the signature's 13
      expect(elements).toBeGreaterThan(atLeast);
      if (shape === "every-optional-element") {
        const item = parseUntrustedXml(signed).getElementsByTagName("Item")[0];
        expect(item && item.getElementsByTagName("*").length + 1).toBe(ITEM_ELEMENTS);
      }
      expect(xmlBoundsProblem(signed)).toBeNull();
      expect(xmlBoundsProblem(signed, { ...UNTRUSTED_XML_BOUNDS, maxElements: elements - 1 })).toBe(`More than ${elements - 1} elements.`);
    },
  );

  it("a crowd of empty elements: maxElements of them parse, one more is refused before any parser", () => {
    const { maxElements } = UNTRUSTED_XML_BOUNDS;
    const crowd = (n: number) => `<ECF>${"<a/>".repeat(n - 1)}</ECF>`;
    expect(elementsIn(crowd(maxElements))).toBe(maxElements);
    expect(xmlBoundsProblem(crowd(maxElements + 1))).toBe(`More than ${maxElements} elements.`);
    expect(() => parseUntrustedXml(crowd(maxElements + 1))).toThrow(`More than ${maxElements} elements.`);
  });
});
