import { type CertificateOptions, makeCertificate as makeWithAuthority, type TestCertificate } from "../../scripts/lib/certificates";
import { env } from "./env";

export type { TestCertificate } from "../../scripts/lib/certificates";

/**
 * The test run's certification authority (made by test/global-setup.ts, trusted by the Worker through
 * ECF_TRUSTED_CA_PEM and by the fake DGII), standing in for an authority accredited by INDOTEL.
 */
export const testAuthority = () => ({ certificatePem: env.TEST_CA_CERT_PEM, privateKeyPem: env.TEST_CA_KEY_PEM });

/**
 * A certificate and its key in a PKCS#12, issued by the test authority unless `authority` says
 * otherwise (null: self-signed), the holder's id in the subject's serialNumber
 * (scripts/lib/certificates.ts).
 */
export function makeCertificate(options: Partial<CertificateOptions> = {}): Promise<TestCertificate> {
  return makeWithAuthority({ ...options, authority: options.authority === undefined ? testAuthority() : options.authority });
}
