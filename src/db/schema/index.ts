export * from "./tenancy";
export * from "./catalog";
export * from "./rnc";
export * from "./inventory";
export * from "./sales";
export * from "./integrations";
