import { xmlBoundsProblem } from "../../lib/xml-bounds";
import { built, parseXml, type SignableXml } from "./signature";

/**
 * The only document another party hands us that we sign: an authentication seed (DGII,
 * Descripción técnica, "Obtener archivo semilla"; Semilla.xsd: `SemillaModel` with `valor`, a
 * string, then `fecha`, a dateTime; the xs:any after them is the Signature we append). DGII serves
 * one, and so does every taxpayer's receiver (`/fe/autenticacion/api/semilla`, "Estándar de
 * comunicación Emisor-Receptor"), so the tenant's certificate signs a text a stranger chose.
 * Whatever else a server returns — an e-CF, an ANECF, an ACECF, a seed with anything beside its
 * two values, a DOCTYPE — is refused before any signing: signed, it would be a document in the
 * tenant's name (issue 30). Checked here, whoever served it (DGII included).
 *
 * What this cannot tell apart is DGII's own seed relayed by a hostile receiver: it is a genuine
 * seed. docs/security.md says what such a relay gains and what it does not.
 */

/** A seed is a few hundred bytes (DGII's example is 270): 4 KiB leaves a wide margin. */
export const MAX_SEED_BYTES = 4096;
const MAX_VALUE_CHARACTERS = 1024;
/** xs:dateTime's lexical form (XML Schema Part 2, 3.2.7.1), as DGII writes it: 2019-03-13T14:33:32.8617792-04:00. */
const DATE_TIME = /^-?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;
const SEED_BOUNDS = { maxDepth: 2, maxNamespaceDeclarations: 4, maxAttributes: 4, maxElements: 3, maxComments: 1 };

/** What a server answered is not a seed: nothing was signed. */
export class NotASeed extends Error {
  override name = "NotASeed";
}

const ELEMENT = 1;
const TEXT = 3;
const CDATA = 4;
const PROCESSING_INSTRUCTION = 7;

/** The text of an element that holds only text (no child element, comment or instruction). */
function textOnly(element: Element): string | null {
  let text = "";
  for (let child = element.firstChild; child; child = child.nextSibling) {
    if (child.nodeType !== TEXT && child.nodeType !== CDATA) return null;
    text += child.nodeValue ?? "";
  }
  return text;
}

/**
 * `text` when it is a seed and nothing else, ready to be signed; else NotASeed saying why. The text
 * signed is the text served (the signature covers it whole), once checked.
 */
export function seedToSign(text: string): SignableXml {
  if (new TextEncoder().encode(text).byteLength > MAX_SEED_BYTES) throw new NotASeed(`The seed is larger than ${MAX_SEED_BYTES} bytes.`);
  const problem = xmlBoundsProblem(text, SEED_BOUNDS);
  if (problem) throw new NotASeed(`Not a seed: ${problem}`);
  let document: ReturnType<typeof parseXml>;
  try {
    document = parseXml(text);
  } catch (error) {
    throw new NotASeed(`Not a seed: ${(error as Error).message}`);
  }
  for (let node = document.firstChild; node; node = node.nextSibling) {
    const declaration = node.nodeType === PROCESSING_INSTRUCTION && node.nodeName === "xml";
    if (node.nodeType !== ELEMENT && !declaration) throw new NotASeed("Not a seed: the document holds something besides its root.");
  }
  const root = document.documentElement!;
  if (root.localName !== "SemillaModel" || root.namespaceURI) throw new NotASeed(`Not a seed: its root is ${root.nodeName}, not SemillaModel.`);
  for (const attribute of Array.from(root.attributes)) {
    if (attribute.name !== "xmlns" && !attribute.name.startsWith("xmlns:"))
      throw new NotASeed(`Not a seed: SemillaModel carries the attribute ${attribute.name}.`);
  }
  const elements: Element[] = [];
  for (let child = root.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === ELEMENT) elements.push(child as Element);
    else if (child.nodeType !== TEXT || (child.nodeValue ?? "").trim()) throw new NotASeed("Not a seed: SemillaModel holds something besides valor and fecha.");
  }
  const names = elements.map((element) => (element.namespaceURI ? `{${element.namespaceURI}}${element.localName}` : element.localName));
  if (names.join(",") !== "valor,fecha") throw new NotASeed(`Not a seed: SemillaModel holds ${names.join(", ") || "nothing"}, not valor then fecha.`);
  const value = textOnly(elements[0]!);
  const date = textOnly(elements[1]!);
  if (!value?.trim() || value.length > MAX_VALUE_CHARACTERS) throw new NotASeed("Not a seed: its valor is empty, too long or not text.");
  if (date === null || !DATE_TIME.test(date.trim())) throw new NotASeed("Not a seed: its fecha is not a date and time.");
  return built(text);
}
