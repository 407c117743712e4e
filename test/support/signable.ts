import type { SignableXml } from "../../src/modules/ecf/signature";

/**
 * Tests play other parties (a supplier, a hostile sender) and sign documents the product never
 * builds: they mark them signable here. Production code never does (src/modules/ecf/signature.ts
 * SignableXml; test/node/signing-paths.test.ts).
 */
export const signable = (xml: string) => xml as SignableXml;
