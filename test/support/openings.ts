/**
 * The request transactions of `tenantId` this spy saw open: a request's opening (`begin`,
 * `openLater`, or its context read alone, `readOverHttp`) carries its context query (`alsoRun`).
 * The spies sit on the prototype, so they also see the Worker's queue consumers
 * (withTenantTransaction, no `alsoRun`) working for this or an earlier test's tenant in the same
 * isolate — which once made "begin was not called" fail on CI (begin(307) from a job).
 */
export function requestOpenings(spy: { mock: { calls: unknown[][] } }, tenantId: number): number {
  return spy.mock.calls.filter(([tenant, alsoRun]) => tenant === tenantId && typeof alsoRun === "string").length;
}
