-- Bounds for the application role's sessions (docs/reliability.md, "Database timeouts"): a
-- statement running away (a report over a huge month, a lock never released) is cut after 30 s,
-- and a transaction left idle (a streamed report download its client never reads,
-- src/http/stream.ts) loses its connection after 2 minutes instead of holding it, and its locks
-- and snapshot, for ever. 2 minutes is above a job's longest wait with a transaction open (a few
-- DGII calls of at most 15 s each, src/modules/ecf/dgii.ts); the streamed reports read a page of
-- 500 rows per statement, far below 30 s. The RNC sync's generation delete raises its own limit
-- (SET LOCAL, src/modules/rnc/sync/runs.ts). Set for this database only (IN DATABASE): the role is
-- cluster-wide, and another database of the same server keeps its own settings. They apply to
-- sessions that log in as sucursal_app (production, the local tests), not to an owner login that
-- switches with SET ROLE (DB_SET_ROLE).
DO $$
BEGIN
  EXECUTE format('ALTER ROLE sucursal_app IN DATABASE %I SET statement_timeout = %L', current_database(), '30s');
  EXECUTE format('ALTER ROLE sucursal_app IN DATABASE %I SET idle_in_transaction_session_timeout = %L', current_database(), '2min');
END
$$;
