/**
 * What `npm run dev`'s demo tenant holds, so a newcomer has something to look at: products with
 * stock in two branches, customers with valid RNCs, a supplier, an E31 accepted by the local DGII
 * stand-in, an E32 to a consumer (when the tenant has an E32 sequence: the lookup page's), a B02, a quotation and a purchase. Made through the API, as a user would, once: a
 * later start finds the products and adds nothing.
 */

import { normalizeIdentification } from "../../src/lib/identification";

export type DemoApi = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<{ status: number; body: { data?: unknown; meta?: { total?: number }; code?: string } }>;

/** `base` (8 digits) with the check digit that makes a valid RNC: demo buyers must pass the RNC rules of a B01/E31. */
function rnc(base: string): string {
  for (let digit = 0; digit < 10; digit++) {
    if (normalizeIdentification("rnc", `${base}${digit}`).ok) return `${base}${digit}`;
  }
  throw new Error(`no check digit makes ${base} an RNC`);
}

/** Today in Santo Domingo (UTC-4, no daylight saving): the issue date DGII expects. */
function today(): string {
  return new Date(Date.now() - 4 * 3_600_000).toISOString().slice(0, 10);
}

/**
 * Seeds the demo data unless the tenant has products already (then answers false). `waitForEcf`
 * answers the status the invoice's e-CF ended in at the local DGII (read from the database, so
 * polling spends none of the API's rate limit).
 */
export async function seedDemoData(api: DemoApi, waitForEcf: (invoiceId: number) => Promise<string>): Promise<boolean> {
  const call = async <T>(method: string, path: string, body?: unknown, headers?: Record<string, string>, status = 201): Promise<T> => {
    const res = await api(method, path, body, headers);
    if (res.status !== status) throw new Error(`demo data: ${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body.data as T;
  };
  const products = await api("GET", "/products?per_page=1");
  if ((products.body.meta?.total ?? 0) > 0) return false;

  const taxes = await call<{ id: number; name: string }[]>("GET", "/taxes?per_page=100", undefined, undefined, 200);
  const subtypes = await call<{ id: number; prefix: string }[]>("GET", "/document-subtypes?per_page=100", undefined, undefined, 200);
  const itbis18 = taxes.find((tax) => tax.name === "ITBIS 18%")!.id;
  const subtype = (prefix: string) => subtypes.find((row) => row.prefix === prefix)!.id;
  const workspaces = await call<{ id: number; name: string }[]>("GET", "/workspaces?per_page=100", undefined, undefined, 200);
  const main = workspaces.find((workspace) => workspace.name === "Principal") ?? workspaces[0]!;
  const santiago = await call<{ id: number }>("POST", "/workspaces", { name: "Santiago", address: "Calle del Sol 12, Santiago", phone: "809-555-0199" });
  // Creating a workspace makes it the creator's current one: back to the first branch, where the
  // contacts and documents below go and where the printed curls look.
  await call("PATCH", `/workspace-context/${main.id}`, undefined, undefined, 200);

  const catalog = [
    { name: "Cemento gris 42.5 kg", sku: "CEM-425", price: "495.00", cost: "410.00", stock: ["120", "45"] },
    { name: "Varilla corrugada 3/8\" x 20'", sku: "VAR-038", price: "285.00", cost: "228.00", stock: ["300", "80"] },
    { name: "Pintura acrílica blanca, galón", sku: "PIN-BLA", price: "1250.00", cost: "900.00", stock: ["40", "12"] },
    { name: "Tubo PVC 1/2\" x 19'", sku: "PVC-012", price: "165.00", cost: "118.00", stock: ["200", "60"] },
  ];
  const made: { id: number; price: string }[] = [];
  for (const product of catalog) {
    const created = await call<{ id: number }>("POST", "/products", {
      name: product.name,
      sku: product.sku,
      price: product.price,
      cost: product.cost,
      default_tax_ids: [itbis18],
    });
    made.push({ id: created.id, price: product.price });
  }
  const installation = await call<{ id: number }>("POST", "/products", {
    name: "Instalación (servicio)",
    sku: "SRV-INS",
    price: "2500.00",
    product_type: "service",
    track_inventory: false,
    default_tax_ids: [itbis18],
  });
  for (const [index, workspace] of [main, santiago].entries()) {
    await call(
      "POST",
      "/inventory/initial-stock",
      { items: catalog.map((product, i) => ({ product_id: made[i]!.id, quantity: product.stock[index] })) },
      {
        "X-Workspace-Id": String(workspace.id),
      },
    );
  }

  const constructora = await call<{ id: number }>("POST", "/contacts", {
    name: "Constructora Del Caribe SRL",
    email: "compras@delcaribe.do",
    phone: "809-555-0110",
    identification_type: "rnc",
    identification: rnc("10100001"),
  });
  await call("POST", "/contacts", {
    name: "Inversiones Cibao SA",
    email: "pagos@cibao.do",
    phone: "809-555-0120",
    identification_type: "rnc",
    identification: rnc("10100002"),
  });
  const consumer = await call<{ id: number }>("POST", "/contacts", { name: "Consumidor final" });
  const supplier = await call<{ id: number }>("POST", "/contacts", {
    name: "Distribuidora Nacional de Materiales SRL",
    contact_type: "supplier",
    email: "ventas@dinamat.do",
    identification_type: "rnc",
    identification: rnc("10100003"),
  });

  const date = today();
  const e31 = await call<{ id: number }>("POST", "/invoices", {
    contact_id: constructora.id,
    document_subtype_id: subtype("E31"),
    issue_date: date,
    items: [
      { product_id: made[0]!.id, quantity: "20", unit_price: made[0]!.price, tax_ids: [itbis18] },
      { product_id: made[1]!.id, quantity: "50", unit_price: made[1]!.price, tax_ids: [itbis18] },
      { product_id: installation.id, quantity: "1", unit_price: "2500.00", tax_ids: [itbis18] },
    ],
  });
  await call("POST", "/invoices", {
    contact_id: consumer.id,
    document_subtype_id: subtype("B02"),
    issue_date: date,
    items: [{ product_id: made[2]!.id, quantity: "2", unit_price: made[2]!.price, tax_ids: [itbis18] }],
  });
  await call("POST", "/quotations", {
    contact_id: constructora.id,
    document_subtype_id: subtype("COT"),
    issue_date: date,
    notes: "Válida 30 días",
    items: [
      { product_id: made[3]!.id, quantity: "100", unit_price: made[3]!.price, tax_ids: [itbis18] },
      { product_id: installation.id, quantity: "1", unit_price: "2500.00", tax_ids: [itbis18] },
    ],
  });
  await call("POST", "/purchases", {
    supplier_id: supplier.id,
    supplier_ncf: "B0100000742",
    issue_date: date,
    expense_type: "09",
    payment_method: "bank_transfer",
    items: [{ product_id: made[0]!.id, quantity: "100", unit_cost: "410.00", tax_ids: [itbis18] }],
  });
  // An E32 under RD$250,000 to the consumer: what the consumer lookup page (/consulta) shows.
  const e32 = subtypes.some((row) => row.prefix === "E32")
    ? await call<{ id: number }>("POST", "/invoices", {
        contact_id: consumer.id,
        document_subtype_id: subtype("E32"),
        issue_date: date,
        items: [{ product_id: made[3]!.id, quantity: "10", unit_price: made[3]!.price, tax_ids: [itbis18] }],
      })
    : null;
  const status = await waitForEcf(e31.id);
  if (status !== "accepted") throw new Error(`demo data: the demo E31 ended ${status} at the local DGII stand-in, not accepted`);
  if (e32) {
    const consumerStatus = await waitForEcf(e32.id);
    if (consumerStatus !== "accepted") throw new Error(`demo data: the demo E32 ended ${consumerStatus} at the local DGII stand-in, not accepted`);
  }
  return true;
}
