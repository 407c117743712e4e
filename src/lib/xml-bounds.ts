/**
 * The shape an XML text from outside must have before any parser reads it (issue 30, "Parsing is
 * bounded before anything else"). One linear pass over the text, no tree built:
 *
 * - no DOCTYPE nor any other `<!…>` declaration: it is the only way to define entities, and where
 *   two parsers read a DTD differently (@xmldom/xmldom and libxml2 do), the schema check would
 *   validate one document while the code reads another;
 * - nesting no deeper than `maxDepth`, at most `maxNamespaceDeclarations` `xmlns` attributes in the
 *   whole document and `maxAttributes` on any element: @xmldom/xmldom 0.8 spends time quadratic in
 *   the namespace declarations in scope (1 MB of nested declarations took 16-27 s of CPU), and an
 *   isolate serves every tenant's requests meanwhile;
 * - at most `maxElements` elements and `maxComments` comments and processing instructions, so a body
 *   of many tiny nodes costs no more to parse than the costliest e-CF a receiver must accept within
 *   its 768 KiB (`npm run bench:hostile-xml`: 50,000 empty elements parse in 58-66 ms of CPU, such
 *   an e-CF in 79-101 ms).
 *
 * e-CF and DGII's other messages are at most ~8 levels deep (ECF/DetallesItems/Item/TablaSubDescuento/
 * SubDescuento/…, Signature/KeyInfo/X509Data/X509Certificate) and declare two or three namespaces
 * (xsi, xsd, the signature's), so the defaults leave a wide margin. This is a bound, not a parser: a
 * text that passes may still be malformed, and the parser then says so.
 */
export interface XmlBounds {
  maxDepth: number;
  maxNamespaceDeclarations: number;
  maxAttributes: number;
  /**
   * Elements in the whole document. The most a valid e-CF within the receiver's body cap holds is
   * ~37,400: an E33 or E34 (e-CF-33.xsd and e-CF-34.xsd allow 10,000 `Item` and 10,000 `Pagina`)
   * of empty `Pagina` and Items of their required fields and empty optional containers
   * (test/support/ecf-costliest.ts; test/node/xml-bounds.test.ts fails if the bound is under it).
   * An e-CF of 1,000 minimal lines as we build it has ~9,000; one whose Items carry every optional
   * element (167 each), ~21,600 at the cap.
   */
  maxElements: number;
  /** Comments and processing instructions: DGII's messages carry none but the XML declaration. */
  maxComments: number;
}

export const UNTRUSTED_XML_BOUNDS: XmlBounds = { maxDepth: 64, maxNamespaceDeclarations: 16, maxAttributes: 32, maxElements: 50_000, maxComments: 64 };

const isSpace = (char: number) => char === 32 || char === 9 || char === 10 || char === 13;
const endsName = (char: number) => isSpace(char) || char === 34 /* " */ || char === 39 /* ' */ || char === 60; /* < */

/** Why `text` may not be parsed, or null when it is within `bounds`. */
export function xmlBoundsProblem(text: string, bounds: XmlBounds = UNTRUSTED_XML_BOUNDS): string | null {
  let depth = 0;
  let namespaces = 0;
  let elements = 0;
  let comments = 0;
  const comment = () => ++comments > bounds.maxComments;
  let at = text.indexOf("<");
  while (at !== -1) {
    const next = text.charCodeAt(at + 1);
    if (next === 63 /* ? */) {
      const end = text.indexOf("?>", at + 2);
      if (end === -1) return "An unterminated processing instruction.";
      if (comment()) return `More than ${bounds.maxComments} comments and processing instructions.`;
      at = text.indexOf("<", end + 2);
      continue;
    }
    if (next === 33 /* ! */) {
      if (text.startsWith("<!--", at)) {
        const end = text.indexOf("-->", at + 4);
        if (end === -1) return "An unterminated comment.";
        if (comment()) return `More than ${bounds.maxComments} comments and processing instructions.`;
        at = text.indexOf("<", end + 3);
        continue;
      }
      if (text.startsWith("<![CDATA[", at)) {
        const end = text.indexOf("]]>", at + 9);
        if (end === -1) return "An unterminated CDATA section.";
        at = text.indexOf("<", end + 3);
        continue;
      }
      return "A DOCTYPE or other declaration (<!…>) is not allowed.";
    }
    if (next === 47 /* / */) {
      const end = text.indexOf(">", at + 2);
      if (end === -1) return "An unterminated end tag.";
      depth -= 1;
      at = text.indexOf("<", end + 1);
      continue;
    }
    // A start tag: its name, then attributes (values quoted, where `>` may appear) up to `>` or `/>`.
    elements += 1;
    if (elements > bounds.maxElements) return `More than ${bounds.maxElements} elements.`;
    let i = at + 1;
    let attributes = 0;
    let closed = false;
    let selfClosing = false;
    while (i < text.length) {
      const char = text.charCodeAt(i);
      if (char === 34 /* " */ || char === 39 /* ' */) {
        const end = text.indexOf(String.fromCharCode(char), i + 1);
        if (end === -1) return "An unterminated attribute value.";
        i = end + 1;
        continue;
      }
      if (char === 61 /* = */) {
        attributes += 1;
        if (attributes > bounds.maxAttributes) return `An element has more than ${bounds.maxAttributes} attributes.`;
        // The attribute's name is what precedes `=` back to a space, a quote or the tag's `<`: each
        // character is looked at once, so the pass stays linear.
        let nameEnd = i;
        while (nameEnd > at && isSpace(text.charCodeAt(nameEnd - 1))) nameEnd -= 1;
        let nameStart = nameEnd;
        while (nameStart > at && !endsName(text.charCodeAt(nameStart - 1))) nameStart -= 1;
        const name = text.slice(nameStart, nameEnd);
        if (name === "xmlns" || name.startsWith("xmlns:")) {
          namespaces += 1;
          if (namespaces > bounds.maxNamespaceDeclarations) return `More than ${bounds.maxNamespaceDeclarations} namespace declarations.`;
        }
        i += 1;
        continue;
      }
      if (char === 62 /* > */) {
        closed = true;
        selfClosing = text.charCodeAt(i - 1) === 47; /* / */
        break;
      }
      if (char === 60 /* < */) return "A start tag is not closed.";
      i += 1;
    }
    if (!closed) return "A start tag is not closed.";
    if (!selfClosing) {
      depth += 1;
      if (depth > bounds.maxDepth) return `Elements are nested deeper than ${bounds.maxDepth} levels.`;
    }
    at = text.indexOf("<", i + 1);
  }
  return null;
}
