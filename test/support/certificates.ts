import forge from "node-forge";

/**
 * Test certificates, made at test time (none is committed): a self-signed RSA 2048 certificate
 * and its key in a PKCS#12, as a Dominican certification authority issues them (the holder's id in
 * the subject's serialNumber). The key comes from WebCrypto (fast in workerd), the certificate and
 * the PKCS#12 from node-forge.
 */
export interface TestCertificate {
  p12Base64: string;
  password: string;
  privateKeyPem: string;
  certificatePem: string;
}

async function rsaKeyPair(): Promise<{ privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey }> {
  const pair = (await crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  )) as CryptoKeyPair;
  const pkcs8 = new Uint8Array((await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer);
  const der = forge.util.binary.raw.encode(pkcs8);
  const privateKey = forge.pki.privateKeyFromAsn1(forge.asn1.fromDer(der)) as forge.pki.rsa.PrivateKey;
  return { privateKey, publicKey: forge.pki.rsa.setPublicKey(privateKey.n, privateKey.e) };
}

export async function makeCertificate(
  options: { password?: string; holderId?: string; notBefore?: Date; notAfter?: Date; withKey?: boolean; commonName?: string } = {},
): Promise<TestCertificate> {
  const { privateKey, publicKey } = await rsaKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = "01";
  cert.validity.notBefore = options.notBefore ?? new Date(Date.now() - 86_400_000);
  cert.validity.notAfter = options.notAfter ?? new Date(Date.now() + 365 * 86_400_000);
  const attributes = [
    { shortName: "CN", value: options.commonName ?? "EMISOR DE PRUEBA SRL" },
    { name: "serialNumber", value: options.holderId ?? "131246796" },
    { shortName: "O", value: "Sucursal Pruebas" },
    { shortName: "C", value: "DO" },
  ];
  cert.setSubject(attributes);
  cert.setIssuer([
    { shortName: "CN", value: "AUTORIDAD DE PRUEBA" },
    { shortName: "C", value: "DO" },
  ]);
  cert.sign(privateKey, forge.md.sha256.create());
  const password = options.password ?? "clave-de-prueba";
  const asn1 = forge.pkcs12.toPkcs12Asn1(options.withKey === false ? null : privateKey, [cert], password, { algorithm: "3des" });
  return {
    p12Base64: forge.util.encode64(forge.asn1.toDer(asn1).getBytes()),
    password,
    privateKeyPem: forge.pki.privateKeyToPem(privateKey),
    certificatePem: forge.pki.certificateToPem(cert),
  };
}
