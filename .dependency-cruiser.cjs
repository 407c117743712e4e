/**
 * The import rules of src/ (CONTRIBUTING.md, "The layers"), checked by `npm run lint`:
 * each layer imports only from itself and the layers below it, no file and no folder is part of
 * an import loop, lib/ imports nothing of the project, only app.ts mounts a module's
 * routes, and a module's subfolders are its own.
 */

/**
 * The layers from the bottom up (CONTRIBUTING.md draws them): folders and files under src/, or
 * module folders under src/modules/. Records: what a change leaves for after its commit (webhook
 * events, the outbox); documents: those built on invoices; top: what reads and drives them all.
 */
const LAYERS = [
  { name: "lib", paths: ["lib/"] },
  { name: "env", paths: ["env.ts"] },
  { name: "db", paths: ["db/"] },
  { name: "http", paths: ["http/"] },
  { name: "records", modules: ["events", "outbox"] },
  { name: "access", modules: ["auth", "users", "roles", "workspaces", "members", "invitations", "company", "tenants"] },
  { name: "catalog", modules: ["currencies", "taxes", "salesmen", "bank-accounts", "rnc", "products", "contacts", "document-subtypes"] },
  { name: "inventory", modules: ["inventory"] },
  { name: "sales", modules: ["sales"] },
  { name: "ecf", modules: ["ecf"] },
  { name: "invoices", modules: ["invoices"] },
  { name: "documents", modules: ["notes", "quotations", "purchases"] },
  { name: "top", modules: ["certification", "reception", "reports", "fiscal-periods", "lookup", "webhooks", "integrations"] },
  { name: "jobs", paths: ["jobs/"] },
  { name: "app", paths: ["app.ts"] },
  { name: "worker", paths: ["index.ts"] },
];

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const pathsOf = (layer) => [...(layer.paths ?? []), ...(layer.modules ?? []).map((name) => `modules/${name}/`)];
const pattern = (layers) => `^src/(${layers.flatMap(pathsOf).map(escapeRegExp).join("|")})`;

const layerRules = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${layer.name}`,
  comment: `${layer.name} sits below ${LAYERS.slice(i + 1)
    .map((above) => above.name)
    .join(", ")}: it may not import them (a port, lib/port.ts, when it needs one of them)`,
  severity: "error",
  from: { path: pattern([layer]) },
  to: { path: pattern(LAYERS.slice(i + 1)) },
}));

/** Every module folder is in one layer: a new module is placed before it can be imported. */
const placed = LAYERS.flatMap((layer) => layer.modules ?? []);

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: "unplaced-module",
      comment: `a module not in any layer of .dependency-cruiser.cjs: place it (CONTRIBUTING.md, "The layers")`,
      severity: "error",
      from: {},
      to: { path: "^src/modules/[^/]+/", pathNot: `^src/modules/(${placed.map(escapeRegExp).join("|")})/` },
    },
    {
      name: "no-circular",
      comment: "no two files import each other, directly or around a loop (type-only imports count)",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-circular-folders",
      comment: "no two folders import each other, directly or around a loop (a module counts as its folder)",
      severity: "error",
      scope: "folder",
      from: {},
      to: { circular: true },
    },
    {
      name: "routes-only-from-app",
      comment: "a module's routes.ts is mounted by app.ts; services and other modules never import it",
      severity: "error",
      from: { pathNot: "^src/app\\.ts$" },
      to: { path: "^src/modules/[^/]+/routes\\.ts$" },
    },
    {
      name: "module-internals",
      comment:
        "a module's subfolder is its own (rnc/sync, ecf/formats): others use the files at its top; its jobs runner and the certification cases built from DGII's formats excepted",
      severity: "error",
      from: { path: "^src/modules/([^/]+)/", pathNot: "^src/modules/certification/case-xml\\.ts$" },
      to: { path: "^src/modules/([^/]+)/[^/]+/", pathNot: "^src/modules/$1/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "\\.d\\.ts$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"], extensions: [".ts", ".js"] },
  },
};
