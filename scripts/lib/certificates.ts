import forge from "node-forge";

/**
 * Certificates for the local stand-ins and the tests, made at run time (none is committed): a
 * certification authority standing in for an INDOTEL-accredited one, and RSA certificates it issues
 * as Dominican authorities do (the holder's RNC or cédula in the subject's serialNumber), in a
 * PKCS#12 as a tenant uploads it. Keys come from WebCrypto (in Node and in workerd alike: fast),
 * certificates and PKCS#12 from node-forge, their signatures from WebCrypto. The Worker trusts the authority through
 * ECF_TRUSTED_CA_PEM (src/modules/ecf/signers.ts).
 *
 * Hostile variants are options: self-signed, another authority, an RSA-1024 key, a SHA-1 signature,
 * outside its dates, without serialNumber.
 */

/** An authority: its certificate and key, as PEM. */
export interface Authority {
  certificatePem: string;
  privateKeyPem: string;
}

export interface TestCertificate {
  p12Base64: string;
  password: string;
  privateKeyPem: string;
  certificatePem: string;
}

interface KeyPair {
  privateKey: forge.pki.rsa.PrivateKey;
  publicKey: forge.pki.rsa.PublicKey;
  /** The private key as PKCS#8 DER, for WebCrypto. */
  pkcs8: Uint8Array<ArrayBuffer>;
}

async function rsaKeyPair(bits = 2048): Promise<KeyPair> {
  const pair = (await crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: bits, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  )) as CryptoKeyPair;
  const pkcs8 = new Uint8Array((await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer);
  const der = forge.util.binary.raw.encode(pkcs8);
  const privateKey = forge.pki.privateKeyFromAsn1(forge.asn1.fromDer(der)) as forge.pki.rsa.PrivateKey;
  return { privateKey, publicKey: forge.pki.rsa.setPublicKey(privateKey.n, privateKey.e), pkcs8 };
}

/** forge's binary strings (one char per byte) as bytes. */
const bytesOf = (binary: string): Uint8Array<ArrayBuffer> => Uint8Array.from(binary, (char) => char.charCodeAt(0));

/** An authority's PEM key (PKCS#1, as forge writes it) as PKCS#8 DER, for WebCrypto. */
function pkcs8OfPem(privateKeyPem: string): Uint8Array<ArrayBuffer> {
  const asn1 = forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(forge.pki.privateKeyFromPem(privateKeyPem)));
  return bytesOf(forge.asn1.toDer(asn1).getBytes());
}

/** forge's certificate functions its type declarations leave out. */
const forgePki = forge.pki as typeof forge.pki & { getTBSCertificate(cert: forge.pki.Certificate): forge.asn1.Asn1 };

/**
 * What forge's `cert.sign(key, md)` does, with the RSA signature made by WebCrypto: forge's
 * JavaScript big integers took half of a test Worker's CPU (one signature per certificate a test
 * makes, docs/reliability.md), WebCrypto is native in Node and in workerd.
 */
async function signCertificate(cert: forge.pki.Certificate, signerPkcs8: Uint8Array<ArrayBuffer>, hash: "sha256" | "sha1"): Promise<void> {
  cert.md = hash === "sha1" ? forge.md.sha1.create() : forge.md.sha256.create();
  const algorithmOid = forge.pki.oids[`${hash}WithRSAEncryption`]!;
  cert.signatureOid = algorithmOid;
  cert.siginfo.algorithmOid = algorithmOid;
  cert.tbsCertificate = forgePki.getTBSCertificate(cert);
  const tbs = bytesOf(forge.asn1.toDer(cert.tbsCertificate).getBytes());
  const key = await crypto.subtle.importKey("pkcs8", signerPkcs8, { name: "RSASSA-PKCS1-v1_5", hash: hash === "sha1" ? "SHA-1" : "SHA-256" }, false, ["sign"]);
  cert.signature = forge.util.binary.raw.encode(new Uint8Array(await crypto.subtle.sign("RSASSA-PKCS1-v1_5", key, tbs)));
}

let serial = Date.now();
/**
 * A serial number unique in the process (the tests issue many certificates per authority): hex of
 * an even length, starting 01, so its DER INTEGER is minimal and positive (a leading zero byte would
 * make forge re-encode the certificate differently from what was signed).
 */
const nextSerial = () => `01${(++serial).toString(16).padStart(12, "0")}`;

/** A certification authority (self-signed root, CA:true, keyCertSign). */
export async function makeAuthority(commonName = "AUTORIDAD DE CERTIFICACION DE PRUEBA"): Promise<Authority> {
  const { privateKey, publicKey, pkcs8 } = await rsaKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = nextSerial();
  cert.validity.notBefore = new Date(Date.now() - 2 * 86_400_000);
  cert.validity.notAfter = new Date(Date.now() + 10 * 365 * 86_400_000);
  const name = [
    { shortName: "CN", value: commonName },
    { shortName: "O", value: "Sucursal Pruebas" },
    { shortName: "C", value: "DO" },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  await signCertificate(cert, pkcs8, "sha256");
  return { certificatePem: forge.pki.certificateToPem(cert), privateKeyPem: forge.pki.privateKeyToPem(privateKey) };
}

export interface CertificateOptions {
  password?: string;
  /**
   * Whom the certificate names, as INDOTEL-accredited authorities write it (docs/security.md, "Who
   * a certificate names"): bare digits go under their scheme — a cédula (11) in serialNumber
   * `IDCDO-…`, an RNC in organizationIdentifier `VATDO-…` — and a value with a prefix (`PASDO-…`)
   * goes in serialNumber as given; null for none.
   */
  holderId?: string | null;
  /** The subject's serialNumber exactly as given (a bare number, say), whatever holderId says. */
  serialNumber?: string;
  /** The subject's organizationIdentifier (2.5.4.97), e.g. `VATDO-<RNC>` on a representative's certificate. */
  organizationIdentifier?: string;
  commonName?: string;
  notBefore?: Date;
  notAfter?: Date;
  /** false: the PKCS#12 holds only the certificate. */
  withKey?: boolean;
  /** The issuing authority; null: self-signed. */
  authority: Authority | null;
  /** RSA key size (hostile: 1024). */
  keyBits?: number;
  /** The certificate's signature hash (hostile: sha1). */
  hash?: "sha256" | "sha1";
}

export async function makeCertificate(options: CertificateOptions): Promise<TestCertificate> {
  const { privateKey, publicKey, pkcs8 } = await rsaKeyPair(options.keyBits ?? 2048);
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = nextSerial();
  cert.validity.notBefore = options.notBefore ?? new Date(Date.now() - 86_400_000);
  cert.validity.notAfter = options.notAfter ?? new Date(Date.now() + 365 * 86_400_000);
  const holderId = options.holderId === undefined ? "131246796" : options.holderId;
  const bare = holderId !== null && /^\d+$/.test(holderId);
  const serialNumber = options.serialNumber ?? (holderId === null ? null : !bare ? holderId : holderId.length === 11 ? `IDCDO-${holderId}` : null);
  const organizationIdentifier = options.organizationIdentifier ?? (bare && holderId.length !== 11 ? `VATDO-${holderId}` : null);
  cert.setSubject([
    { shortName: "CN", value: options.commonName ?? "EMISOR DE PRUEBA SRL" },
    ...(serialNumber === null ? [] : [{ name: "serialNumber", value: serialNumber }]),
    // forge writes the tag number (a UTF8String) into valueTagClass; its types call that field an asn1.Class.
    ...(organizationIdentifier
      ? [{ type: "2.5.4.97", value: organizationIdentifier, valueTagClass: forge.asn1.Type.UTF8 as unknown as forge.asn1.Class }]
      : []),
    { shortName: "O", value: "Sucursal Pruebas" },
    { shortName: "C", value: "DO" },
  ]);
  cert.setExtensions([{ name: "keyUsage", digitalSignature: true, nonRepudiation: true, critical: true }]);
  const hash = options.hash ?? "sha256";
  if (options.authority) {
    const issuer = forge.pki.certificateFromPem(options.authority.certificatePem);
    cert.setIssuer(issuer.subject.attributes);
    await signCertificate(cert, pkcs8OfPem(options.authority.privateKeyPem), hash);
  } else {
    cert.setIssuer(cert.subject.attributes);
    await signCertificate(cert, pkcs8, hash);
  }
  const password = options.password ?? "clave-de-prueba";
  const asn1 = forge.pkcs12.toPkcs12Asn1(options.withKey === false ? null : privateKey, [cert], password, { algorithm: "3des" });
  return {
    p12Base64: forge.util.encode64(forge.asn1.toDer(asn1).getBytes()),
    password,
    privateKeyPem: forge.pki.privateKeyToPem(privateKey),
    certificatePem: forge.pki.certificateToPem(cert),
  };
}
