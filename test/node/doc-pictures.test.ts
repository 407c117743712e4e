import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/database";

/**
 * The pictures of the printed documents (docs/pictures/, made by `npm run docs:pictures`): every
 * picture a document of the repository points to exists and is a PNG of a readable size, the four
 * kinds are shown in docs/fiscal.md, and no picture is left that nothing shows.
 */

const PICTURES = path.join(ROOT, "docs/pictures");
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const MAX_BYTES = 300 * 1024;

const documents = [
  path.join(ROOT, "README.md"),
  path.join(ROOT, "CONTRIBUTING.md"),
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => path.join(ROOT, "docs", f)),
];

/** Each link or image target in `file` that is a picture (.png, .jpg, .svg …), resolved from the file's folder. */
function pictureLinks(file: string): { from: string; target: string; resolved: string }[] {
  const text = readFileSync(file, "utf8");
  const links: { from: string; target: string; resolved: string }[] = [];
  for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)|<img[^>]*\ssrc="([^"]+)"/g)) {
    const target = (match[1] ?? match[2])!.split("#")[0]!;
    if (!/\.(png|jpe?g|gif|svg|webp)$/i.test(target) || /^[a-z]+:/i.test(target)) continue;
    links.push({ from: path.relative(ROOT, file), target, resolved: path.resolve(path.dirname(file), decodeURI(target)) });
  }
  return links;
}

const links = documents.flatMap(pictureLinks);

describe("pictures of the printed documents", () => {
  it("points only to pictures that exist, as PNGs under 300 KB", () => {
    expect(links.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const link of links) {
      if (!existsSync(link.resolved)) {
        problems.push(`${link.from}: ${link.target} does not exist`);
        continue;
      }
      const bytes = readFileSync(link.resolved);
      if (link.target.toLowerCase().endsWith(".png") && !PNG_SIGNATURE.every((b, i) => bytes[i] === b))
        problems.push(`${link.from}: ${link.target} is not a PNG`);
      if (statSync(link.resolved).size > MAX_BYTES) problems.push(`${link.from}: ${link.target} is over 300 KB`);
    }
    expect(problems).toEqual([]);
  });

  it("shows one invoice, quotation, credit note and debit note in docs/fiscal.md", () => {
    const shown = links.filter((l) => l.from === path.join("docs", "fiscal.md")).map((l) => path.relative(ROOT, l.resolved));
    expect(shown).toEqual(
      expect.arrayContaining(["invoice", "quotation", "credit-note", "debit-note"].map((kind) => path.join("docs", "pictures", `${kind}.png`))),
    );
  });

  it("leaves no picture in docs/pictures/ that no document shows", () => {
    const shown = new Set(links.map((l) => l.resolved));
    expect(readdirSync(PICTURES).filter((f) => !shown.has(path.join(PICTURES, f)))).toEqual([]);
  });
});
