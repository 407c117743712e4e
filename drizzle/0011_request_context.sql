-- The request context (token, user, target workspace, permissions) as a function, so that its plan
-- is cached by the backend instead of planned on every request. Sent as one simple query with BEGIN
-- (src/http/auth.ts); measured before this change: planning 1.4-1.9 ms + execution 0.6-0.9 ms of
-- Postgres CPU per request, the planning part paid again by every request. Behind a transaction-mode
-- pooler (Neon's pooled endpoint, PgBouncer in `npm run bench`) the backend and this plan outlive the
-- request. SECURITY INVOKER: row-level security applies as for the statement it replaces (the caller
-- has set app.tenant_id first). A generic plan: every lookup is by key, whatever the arguments.
CREATE OR REPLACE FUNCTION request_context(p_token_id uuid, p_user_id integer, p_workspace_id integer)
RETURNS TABLE (
  user_id integer,
  name text,
  email text,
  current_workspace_id integer,
  workspace_id integer,
  workspace_name text,
  role_name text,
  member_permissions json,
  all_locations_permissions json
)
LANGUAGE plpgsql VOLATILE SECURITY INVOKER
SET plan_cache_mode = force_generic_plan
SET jit = off
AS $fn$
BEGIN
  RETURN QUERY
  WITH tok AS (
    SELECT t.id, t.user_id FROM access_tokens t
    WHERE t.id = p_token_id AND t.user_id = p_user_id AND t.revoked_at IS NULL AND t.expires_at > now()
  ), touch AS (
    -- last_used_at at most once a minute: a read does not write on every request.
    UPDATE access_tokens t SET last_used_at = now()
    WHERE t.id = (SELECT tok.id FROM tok) AND (t.last_used_at IS NULL OR t.last_used_at < now() - interval '1 minute')
    RETURNING 1
  ), usr AS (
    SELECT u.id, u.name, u.email, u.current_workspace_id FROM users u JOIN tok ON tok.user_id = u.id
  ), memberships AS (
    SELECT m.workspace_id, r.name AS role_name, r.permissions
    FROM workspace_members m JOIN roles r ON r.id = m.role_id
    WHERE m.user_id = (SELECT usr.id FROM usr)
  ), all_locations AS (
    SELECT array_agg(DISTINCT p) AS permissions
    FROM memberships, unnest(memberships.permissions) AS p
    WHERE 'view_all_locations' = ANY(memberships.permissions)
  ), target AS (
    SELECT CASE
      WHEN p_workspace_id IS NOT NULL THEN p_workspace_id
      WHEN (SELECT usr.current_workspace_id FROM usr) IS NOT NULL
        AND ((SELECT usr.current_workspace_id FROM usr) IN (SELECT ms.workspace_id FROM memberships ms)
          OR (SELECT al.permissions FROM all_locations al) IS NOT NULL)
        THEN (SELECT usr.current_workspace_id FROM usr)
      ELSE (SELECT min(ms.workspace_id) FROM memberships ms)
    END AS id
  )
  SELECT usr.id, usr.name, usr.email, usr.current_workspace_id,
    w.id, w.name,
    (SELECT ms.role_name FROM memberships ms WHERE ms.workspace_id = w.id),
    (SELECT array_to_json(ms.permissions) FROM memberships ms WHERE ms.workspace_id = w.id),
    (SELECT array_to_json(al.permissions) FROM all_locations al)
  FROM usr LEFT JOIN workspaces w ON w.id = (SELECT target.id FROM target);
END
$fn$;
