export * from "./tenancy";
export * from "./catalog";
export * from "./rnc";
