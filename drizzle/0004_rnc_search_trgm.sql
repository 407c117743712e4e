-- Search over the RNC registry: substring matching (LIKE '%term%') on the folded `search` column,
-- served by a trigram GIN index so that it never needs a sequential scan. pg_trgm is a trusted
-- extension (the database owner may create it).
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "rnc_records_search_trgm_idx" ON "rnc_records" USING gin ("search" gin_trgm_ops);
