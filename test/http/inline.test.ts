import { describe, expect, it } from "vitest";
import { inlineStatement, NotInlinable, splitStatements } from "../../src/db/inline";

/**
 * The text a statement sent with a request's BEGIN becomes (src/db/inline.ts): its `$n` replaced by
 * literals, outside the statement's own quoted parts and comments only.
 */
describe("inlining a statement's parameters", () => {
  it("replaces each $n by an E'…' literal, quotes and backslashes doubled, NULL for null", () => {
    expect(inlineStatement("SELECT * FROM t WHERE a = $1 AND b = $2 AND c = $3 AND d = $10", [7, "o'k \\ x", null, 1, 2, 3, 4, 5, 6, true])).toBe(
      "SELECT * FROM t WHERE a = E'7' AND b = E'o''k \\\\ x' AND c = NULL AND d = E'true'",
    );
  });

  it("leaves $n alone inside strings, E-strings, identifiers, dollar quotes and comments", () => {
    const sql = [
      "SELECT '$1', 'it''s $1', E'a\\'$1', \"col$1\", $tag$ $1 $tag$, $$ $1 $$, x$1",
      "-- a comment $1",
      "/* another $1 */ FROM t WHERE a = $1",
    ].join("\n");
    expect(inlineStatement(sql, ["v"])).toBe(
      ["SELECT '$1', 'it''s $1', E'a\\'$1', \"col$1\", $tag$ $1 $tag$, $$ $1 $$, x$1", "-- a comment $1", "/* another $1 */ FROM t WHERE a = E'v'"].join("\n"),
    );
  });

  it("a quote after a word is not an E-string: its backslash escapes nothing", () => {
    expect(inlineStatement("SELECT name'\\' , $1", [1])).toBe("SELECT name'\\' , E'1'");
  });

  it("drops one trailing semicolon, refuses several statements, a missing parameter, a Date and NUL", () => {
    expect(inlineStatement("SELECT $1 ; \n", [1])).toBe("SELECT E'1' ");
    expect(() => inlineStatement("SELECT 1; SELECT $1", [1])).toThrow(NotInlinable);
    expect(() => inlineStatement("SELECT $2", [1])).toThrow(NotInlinable);
    expect(() => inlineStatement("SELECT $1", [new Date()])).toThrow(NotInlinable);
    expect(() => inlineStatement("SELECT $1", ["a\0b"])).toThrow(NotInlinable);
    expect(() => inlineStatement("SELECT $1", [Number.NaN])).toThrow(NotInlinable);
  });

  it("splits a message at its top-level semicolons only", () => {
    expect(splitStatements("BEGIN; SELECT ';' ; SELECT $$;$$;\nCOMMIT;")).toEqual(["BEGIN", "SELECT ';'", "SELECT $$;$$", "COMMIT"]);
  });
});
