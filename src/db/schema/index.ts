export * from "./catalog";
export * from "./ecf";
export * from "./integrations";
export * from "./inventory";
export * from "./purchases";
export * from "./rnc";
export * from "./sales";
export * from "./tenancy";
