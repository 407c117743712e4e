-- User deactivation (issue 15). A deactivated user cannot log in (src/modules/auth/service.ts) and
-- their tokens are revoked when they are deactivated (src/modules/users/service.ts); request_context
-- also yields no row for them, so a token that escaped the revocation (issued by a login that raced
-- the deactivation) is refused too. Same signature and a single statement as in 0011: the backend's
-- cached plan and the one round trip with BEGIN stay as they were.
ALTER TABLE "users" ADD COLUMN "deactivated_at" timestamp with time zone;--> statement-breakpoint
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
    -- A deactivated user has no context: every request of theirs is 401, whatever the token.
    WHERE u.deactivated_at IS NULL
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
