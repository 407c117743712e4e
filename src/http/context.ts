import type { Pool } from "@neondatabase/serverless";
import type { Database, RequestTransaction } from "../db/client";
import type { Env } from "../env";

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
  pool?: Pool;
  tx?: RequestTransaction;
  tokenClaims?: TokenClaims;
  auth?: AuthContext;
  workspace?: WorkspaceContext;
}

export type AppEnv = { Bindings: Env; Variables: AppVariables };
export type { Database };
