import { z } from "@hono/zod-openapi";

export const ECF_ENVIRONMENTS = ["testecf", "certecf", "ecf"] as const;
export type EcfEnvironment = (typeof ECF_ENVIRONMENTS)[number];

export const PutCertificateBody = z
  .object({
    p12_base64: z
      .string()
      .min(1)
      .max(200_000)
      .openapi({ description: "The PKCS#12 (.p12/.pfx) file in base64: an RSA key and its certificate, from a DGII-accredited authority" }),
    password: z.string().max(1000).openapi({ description: "The file's password; stored encrypted, never returned" }),
  })
  .strict()
  .openapi("PutEcfCertificateRequest");
export type PutCertificateInput = z.output<typeof PutCertificateBody>;

export const EcfCertificate = z
  .object({
    subject: z.string(),
    serial_number: z.string().nullable().openapi({ description: "The subject's serialNumber: the holder's cédula or RNC" }),
    issuer: z.string(),
    not_before: z.string(),
    not_after: z.string(),
    fingerprint_sha256: z.string(),
    warnings: z.array(z.object({ code: z.string(), message: z.string() })),
  })
  .openapi("EcfCertificate");

export const EcfSettings = z
  .object({
    environment: z.enum(ECF_ENVIRONMENTS),
    enabled: z.boolean(),
    has_certificate: z.boolean(),
    ecf_base_url: z.string().openapi({ description: "DGII's e-CF services for this environment" }),
    fc_base_url: z.string().openapi({ description: "DGII's consumer-invoice summary (RFCE) services for this environment" }),
    updated_at: z.string().nullable(),
  })
  .openapi("EcfSettings");

export const PutSettingsBody = z
  .object({
    environment: z.enum(ECF_ENVIRONMENTS).optional().openapi({ description: "testecf (pre-certification), certecf (certification), ecf (production)" }),
    enabled: z.boolean().optional(),
  })
  .strict()
  .openapi("PutEcfSettingsRequest");
export type PutSettingsInput = z.output<typeof PutSettingsBody>;
