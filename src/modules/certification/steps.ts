/**
 * DGII's certification as an electronic issuer, step by step (DGII, "Proceso de Certificación para
 * ser Emisor Electrónico", July 2025; its provider variant, March 2025). The numbers and names are
 * DGII's, as the Oficina Virtual (OFV) shows them.
 *
 * `runBy` says who can tell a step is done: `sucursal` steps are read from what Sucursal did or
 * received (a test set run, accepted e-CF, DGII's documents reaching the receiver) and gate the
 * switch to production; `admin` steps happen in DGII's OFV, where Sucursal sees nothing, and the
 * admin marks them done with a note. `providerSkips`: a taxpayer that issues through a certified
 * service provider skips DGII's data and communication tests.
 */
export interface CertificationStep {
  number: number;
  /** DGII's name of the step. */
  name: string;
  runBy: "sucursal" | "admin";
  providerSkips: boolean;
  /** What Sucursal does for the step. */
  sucursalDoes: string;
  /** What the admin does in DGII's Oficina Virtual (or elsewhere) for it. */
  adminDoes: string;
}

export const CERTIFICATION_STEPS: readonly CertificationStep[] = [
  {
    number: 1,
    name: "Registrado",
    runBy: "admin",
    providerSkips: false,
    sucursalDoes:
      "Nothing to run: the receiver URLs to register are /fe/recepcion/api/ecf, /fe/aprobacioncomercial/api/ecf and /fe/autenticacion on the tenant's host.",
    adminDoes:
      "In the OFV, file form FI-GDF-016, register the software (Sucursal, own or third party) and the receiver URLs, then sign DGII's XML with the representative's certificate and upload it.",
  },
  {
    number: 2,
    name: "Pruebas de datos e-CF",
    runBy: "sucursal",
    providerSkips: true,
    sucursalDoes:
      "Runs DGII's e-CF test set (POST /api/v1/ecf/certification/test-sets): each case built, signed and sent to CerteCF; one rejection restarts the set.",
    adminDoes: "Download the test set (Excel) from the OFV and upload it to Sucursal, with the environment on certecf.",
  },
  {
    number: 3,
    name: "Pruebas de datos aprobación comercial",
    runBy: "sucursal",
    providerSkips: true,
    sucursalDoes: "Builds, signs and sends the ACECF of DGII's commercial approval set to CerteCF's aprobacioncomercial service.",
    adminDoes: "Download the commercial approval set (Excel) from the OFV and upload it to Sucursal.",
  },
  {
    number: 4,
    name: "Simulación e-CF",
    runBy: "sucursal",
    providerSkips: false,
    sucursalDoes:
      "Counts the e-CF accepted in certecf per type the tenant has an electronic sequence for (RFCE for E32 under RD$250,000 included): done with one of each.",
    adminDoes:
      "Invoice as usual with the environment on certecf; upload the full XML of each E32 under RD$250,000 in the OFV (Facturas de consumo < 250Mil: GET …/ecf.xml of each).",
  },
  {
    number: 5,
    name: "Simulación representación impresa",
    runBy: "admin",
    providerSkips: false,
    sucursalDoes:
      "GET /api/v1/ecf/certification/printed-representations.zip: the PDF of each e-CF accepted in the simulation, named <e-NCF>.pdf, each under 10 MB.",
    adminDoes: "Upload the PDF of each e-CF of the simulation in the OFV (10 MB at most each).",
  },
  {
    number: 6,
    name: "Validación representación impresa",
    runBy: "admin",
    providerSkips: false,
    sucursalDoes: "Nothing to run: DGII reviews the PDFs (QR, labels, order and placement of the fields).",
    adminDoes: "Wait for DGII's approval in the OFV; mark done when approved.",
  },
  {
    number: 7,
    name: "URL servicios de prueba",
    runBy: "admin",
    providerSkips: true,
    sucursalDoes:
      "The receiver's base URL is the tenant's host, or the e-CF settings' receiver_url (PUT /api/v1/ecf/settings); POST /api/v1/ecf/certification/receiver-check calls it as DGII will.",
    adminDoes: "Confirm or update the receiver URLs in the OFV.",
  },
  {
    number: 8,
    name: "Pruebas de comunicación",
    runBy: "admin",
    providerSkips: true,
    sucursalDoes:
      "The receiver answers DGII's seed, certificate validation, reception and commercial approval requests under /fe; POST /api/v1/ecf/certification/receiver-check plays DGII against it and reports each answer.",
    adminDoes: "Optionally download DGII's root certificate; mark the receiver ready to receive in the OFV.",
  },
  {
    number: 9,
    name: "Recepción e-CF",
    runBy: "sucursal",
    providerSkips: true,
    sucursalDoes: "Done when an e-CF reaches the tenant's receiver (/fe/recepcion/api/ecf) while the environment is certecf, answered with a signed ARECF.",
    adminDoes: "Nothing: DGII sends its e-CF to the receiver.",
  },
  {
    number: 10,
    name: "Inicio prueba de aprobaciones comerciales",
    runBy: "admin",
    providerSkips: true,
    sucursalDoes: "Nothing to run.",
    adminDoes: "Press «Enviar prueba…» in the OFV.",
  },
  {
    number: 11,
    name: "Recepción aprobaciones comerciales",
    runBy: "sucursal",
    providerSkips: true,
    sucursalDoes: "Done when a commercial approval (ACECF) of one of the tenant's certecf e-CF reaches the receiver (/fe/aprobacioncomercial/api/ecf).",
    adminDoes: "Nothing: DGII sends ACECF to the receiver.",
  },
  {
    number: 12,
    name: "URL servicios producción",
    runBy: "admin",
    providerSkips: false,
    sucursalDoes: "Nothing to run: the production receiver is the same host under /fe.",
    adminDoes: "Publish the production receiver URLs in DGII's directory from the OFV.",
  },
  {
    number: 13,
    name: "Declaración jurada",
    runBy: "admin",
    providerSkips: false,
    sucursalDoes: "Nothing to run.",
    adminDoes: "Download the sworn declaration's XML from the OFV, sign it with the representative's certificate and upload it.",
  },
  {
    number: 14,
    name: "Verificación de estatus",
    runBy: "admin",
    providerSkips: false,
    sucursalDoes: "Nothing to run: once DGII opens production, switch the environment to ecf (PUT /api/v1/ecf/settings).",
    adminDoes: "Wait for DGII's verification that the taxpayer is up to date; production opens.",
  },
];

export const stepByNumber = (number: number) => CERTIFICATION_STEPS.find((step) => step.number === number);
