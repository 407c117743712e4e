/**
 * The catalog of permission identifiers (`<resource>:<action>`) and the built-in roles. The
 * permission table of docs/permissions.md is generated from the route table (`npm run docs:routes`) and checked by
 * test/node/route-permissions.test.ts.
 */
const crud = (resource: string, label: string) => ({
  [`${resource}:view`]: `View ${label}`,
  [`${resource}:create`]: `Create ${label}`,
  [`${resource}:edit`]: `Edit ${label}`,
  [`${resource}:delete`]: `Delete ${label}`,
});

export const permissionCatalog: Record<string, string> = {
  "workspaces:view": "View workspaces",
  "workspaces:create": "Create workspaces",
  "workspaces:edit": "Edit workspace settings (owner only)",
  "members:view": "View the members of a workspace",
  "members:edit": "Change a member's role",
  "members:delete": "Remove members from a workspace",
  ...crud("roles", "roles"),
  "invitations:view": "View invitations",
  "invitations:create": "Invite people to a workspace",
  "invitations:delete": "Revoke invitations",
  ...crud("products", "products"),
  ...crud("contacts", "contacts"),
  ...crud("invoices", "invoices"),
  "payments:view": "View payments",
  "payments:create": "Record payments",
  "payments:delete": "Delete payments",
  ...crud("quotations", "quotations"),
  ...crud("purchases", "purchases (supplier bills and the documents the company issues about them)"),
  "inventory:view": "View stock, transfers, adjustments and movements",
  "inventory:adjust": "Adjust stock and set initial stock",
  "inventory:transfer": "Transfer stock between workspaces",
  ...crud("document_subtypes", "document subtypes (NCF sequences)"),
  ...crud("taxes", "taxes"),
  ...crud("currencies", "currencies"),
  ...crud("salesmen", "salesmen"),
  ...crud("bank_accounts", "bank accounts"),
  "integrations:view": "View messaging bots and chat accounts",
  "integrations:manage": "Create, change and use messaging bots and chat accounts",
  "rnc:view": "Look up and search the DGII taxpayer registry",
  "company:edit": "Edit the company's fiscal profile (RNC, legal name, address)",
  "ecf:manage": "Set up electronic invoicing (e-CF): the signing certificate and DGII's environment",
  "received_ecf:view": "View the e-CF suppliers sent (received through the receiver services)",
  "received_ecf:approve": "Approve or reject received e-CF (commercial approval, sent to DGII and the supplier)",
  "reports:view": "Download DGII's monthly reports (606 purchases, 608 annulled NCFs) of the whole company",
  "fiscal_periods:close": "Close a month once its returns are filed: nothing may be written into it any more, and its reports are kept as filed",
  "webhooks:manage": "Manage outgoing webhook endpoints (their URLs, events and signing secrets) and see their deliveries",
  view_all_locations: "See every workspace of the tenant",
};

export const allPermissions = Object.keys(permissionCatalog);

/** The everyday set: sales documents, products and contacts (view, create, edit), stock in view. */
const memberPermissions = [
  "workspaces:view",
  "members:view",
  "roles:view",
  ...["products", "contacts", "invoices", "quotations"].flatMap((r) => [`${r}:view`, `${r}:create`, `${r}:edit`]),
  "payments:view",
  "payments:create",
  "inventory:view",
  "document_subtypes:view",
  "taxes:view",
  "currencies:view",
  "salesmen:view",
  "bank_accounts:view",
  "integrations:view",
  "rnc:view",
];

/**
 * Views that are not the viewer's: DGII's monthly reports cover the whole company (every branch's
 * purchases and annulments), more than a read-only member of one branch is meant to see.
 */
const COMPANY_REPORTS = ["reports:view"];

/**
 * The accountant reviews the company's fiscal records and files DGII's monthly reports: every view
 * of the documents and catalogs behind them, across workspaces, and the reports; no writes.
 */
const accountantPermissions = [...allPermissions.filter((p) => p.endsWith(":view")), "view_all_locations"];

export const builtinRoles = [
  { name: "admin", displayName: "Administrador", permissions: allPermissions },
  { name: "member", displayName: "Miembro", permissions: memberPermissions },
  { name: "viewer", displayName: "Solo lectura", permissions: allPermissions.filter((p) => p.endsWith(":view") && !COMPANY_REPORTS.includes(p)) },
  { name: "accountant", displayName: "Contador", permissions: accountantPermissions },
] as const;

export const isKnownPermission = (permission: string) => Object.hasOwn(permissionCatalog, permission);
