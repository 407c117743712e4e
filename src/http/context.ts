import type { Database, RequestTransaction } from "../db/client";
import type { CompanyGrant } from "../db/grants";
import type { Env } from "../env";
import type { RequestScope } from "./scope";

export interface Tenant {
  id: number;
  subdomain: string;
  name: string;
}

export interface AuthContext {
  userId: number;
  tokenId: string;
  name: string;
  email: string;
  currentWorkspaceId: number | null;
}

export interface WorkspaceContext {
  id: number;
  name: string;
  /** Role held in this workspace, or null when reached through view_all_locations. */
  roleName: string | null;
  permissions: ReadonlySet<string>;
  viewAllLocations: boolean;
}

export interface TokenClaims {
  userId: number;
  tenantId: number;
  tokenId: string;
}

export interface AppVariables {
  requestId: string;
  tenant: Tenant;
  tx?: RequestTransaction;
  /** A bearer token that verified (signature, expiry), set by `bearerToken`; the database still decides. */
  tokenClaims?: TokenClaims;
  auth?: AuthContext;
  workspace?: WorkspaceContext;
  /** The caller's company role (null: none), once a company-level rule has read it (http/permissions.ts companyGrant). */
  company?: CompanyGrant | null;
  /**
   * The tenant transaction's drizzle handle. Set for every route declared with `defineRoute`
   * (publicSession or authenticate), so handlers read it without a check.
   */
  db: Database;
  /**
   * The request's scope as services take it. Set by authenticate: for a request without a workspace
   * (or a public route) it is a scope whose every field refuses with 403 workspace_forbidden (401
   * unauthenticated), so a handler that needs a workspace cannot run without one.
   */
  scope: RequestScope;
  /** Outbox rows the request wrote: pushed onto the Queue once it has committed (`afterCommitDispatch`, jobs/dispatch.ts). */
  outbox: number[];
  /** e-CF documents the request signed: sent through ECF_QUEUE once it has committed (`afterCommitDispatch`, jobs/dispatch.ts). */
  ecf: number[];
  /** Commercial approvals (ACECF) the request signed: delivered through ECF_QUEUE once it has committed. */
  approvals: number[];
  /** Runs of DGII's test sets the request started: stepped through ECF_QUEUE once it has committed. */
  certificationRuns: number[];
  /**
   * Set by a read that answers with a body streamed from the request transaction (`streamedBody`,
   * http/stream.ts): settles when the body has been written, failed or been cancelled. The
   * transaction is committed and its connection released only then (`databaseSession`).
   */
  streaming?: Promise<void>;
}

export type AppEnv = { Bindings: Env; Variables: AppVariables };
