-- RNC search in one statement (one round trip) with bounded cost on 750,000 records.
-- Ranks: 0 the exact identification, 1 a prefix (of the identification, or of the folded name or
-- trade name), 2 a substring anywhere; at most p_limit records in all.
-- * Prefixes: btree range scans that stop at the limit (the PK for digits; text_pattern_ops indexes
--   on the folded name and trade name otherwise).
-- * Substring anywhere: for a common fragment ("nez" is in a third of all names) a GIN bitmap scan
--   must read hundreds of thousands of entries (~40 ms) before the limit can act, while walking the
--   first few thousand records finds ten at once; for a rare fragment it is the reverse. So a
--   bounded probe of the first 3,000 records (by identification) decides: ten matches there → they
--   are the answer; fewer → the trigram GIN index finds every match (a rare term has few).
-- * Never a sequential scan (enable_seqscan off for the function only, through its SET clause).
CREATE INDEX IF NOT EXISTS "rnc_records_name_prefix_idx" ON "rnc_records" (split_part("search", E'\n', 2) text_pattern_ops, "run_id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "rnc_records_comercial_prefix_idx" ON "rnc_records" (split_part("search", E'\n', 3) text_pattern_ops, "run_id");--> statement-breakpoint
CREATE OR REPLACE FUNCTION rnc_search(p_term text, p_upper text, p_pattern text, p_digits boolean, p_limit integer)
RETURNS TABLE (rank integer, identification text, name text, comercial_name text, status text)
LANGUAGE plpgsql VOLATILE
SET enable_seqscan = off
SET enable_indexscan = on
SET jit = off
AS $fn$
DECLARE
  v_run integer := (SELECT max(r.id) FROM rnc_sync_runs r WHERE r.status = 'completed');
  v_found integer := 0;
  v_rows integer;
  v_dense integer;
BEGIN
  IF v_run IS NULL THEN
    RETURN;
  END IF;
  IF p_digits THEN
    RETURN QUERY SELECT 0, x.identification, x.name, x.comercial_name, x.status FROM rnc_records x
      WHERE x.run_id = v_run AND x.identification = p_term;
    GET DIAGNOSTICS v_rows = ROW_COUNT; v_found := v_found + v_rows;
    RETURN QUERY SELECT 1, x.identification, x.name, x.comercial_name, x.status FROM rnc_records x
      WHERE x.run_id = v_run AND x.identification > p_term AND (p_upper IS NULL OR x.identification < p_upper)
      ORDER BY x.identification LIMIT p_limit - v_found;
    GET DIAGNOSTICS v_rows = ROW_COUNT; v_found := v_found + v_rows;
  ELSE
    RETURN QUERY SELECT 1, x.identification, x.name, x.comercial_name, x.status FROM rnc_records x
      WHERE split_part(x.search, E'\n', 2) ~>=~ p_term AND split_part(x.search, E'\n', 2) ~<~ p_upper AND x.run_id = v_run
      LIMIT p_limit;
    GET DIAGNOSTICS v_rows = ROW_COUNT; v_found := v_found + v_rows;
    IF v_found < p_limit THEN
      RETURN QUERY SELECT 1, x.identification, x.name, x.comercial_name, x.status FROM rnc_records x
        WHERE split_part(x.search, E'\n', 3) ~>=~ p_term AND split_part(x.search, E'\n', 3) ~<~ p_upper AND x.run_id = v_run
          AND NOT (split_part(x.search, E'\n', 2) ~>=~ p_term AND split_part(x.search, E'\n', 2) ~<~ p_upper)
        LIMIT p_limit - v_found;
      GET DIAGNOSTICS v_rows = ROW_COUNT; v_found := v_found + v_rows;
    END IF;
  END IF;
  IF v_found >= p_limit THEN
    RETURN;
  END IF;
  -- Rank 2: a substring that is not one of the prefixes above.
  SELECT count(*) INTO v_dense FROM (
    SELECT 1 FROM (SELECT y.search, y.identification FROM rnc_records y WHERE y.run_id = v_run ORDER BY y.identification LIMIT 3000) s
    WHERE s.search LIKE p_pattern
      AND NOT CASE WHEN p_digits THEN s.identification >= p_term AND (p_upper IS NULL OR s.identification < p_upper)
              ELSE (split_part(s.search, E'\n', 2) ~>=~ p_term AND split_part(s.search, E'\n', 2) ~<~ p_upper)
                OR (split_part(s.search, E'\n', 3) ~>=~ p_term AND split_part(s.search, E'\n', 3) ~<~ p_upper) END
    LIMIT p_limit - v_found) d;
  IF v_dense >= p_limit - v_found THEN
    RETURN QUERY SELECT 2, s.identification, s.name, s.comercial_name, s.status
      FROM (SELECT y.* FROM rnc_records y WHERE y.run_id = v_run ORDER BY y.identification LIMIT 3000) s
      WHERE s.search LIKE p_pattern
        AND NOT CASE WHEN p_digits THEN s.identification >= p_term AND (p_upper IS NULL OR s.identification < p_upper)
                ELSE (split_part(s.search, E'\n', 2) ~>=~ p_term AND split_part(s.search, E'\n', 2) ~<~ p_upper)
                  OR (split_part(s.search, E'\n', 3) ~>=~ p_term AND split_part(s.search, E'\n', 3) ~<~ p_upper) END
      LIMIT p_limit - v_found;
    RETURN;
  END IF;
  -- A rare fragment: the trigram index (bitmap scan only, so never a walk of a whole index).
  SET LOCAL enable_indexscan = off;
  RETURN QUERY SELECT 2, x.identification, x.name, x.comercial_name, x.status FROM rnc_records x
    WHERE x.run_id = v_run AND x.search LIKE p_pattern
      AND NOT CASE WHEN p_digits THEN x.identification >= p_term AND (p_upper IS NULL OR x.identification < p_upper)
              ELSE (split_part(x.search, E'\n', 2) ~>=~ p_term AND split_part(x.search, E'\n', 2) ~<~ p_upper)
                OR (split_part(x.search, E'\n', 3) ~>=~ p_term AND split_part(x.search, E'\n', 3) ~<~ p_upper) END
    LIMIT p_limit - v_found;
END
$fn$;
