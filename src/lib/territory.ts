/**
 * DGII's territorial codes for the issuer's and buyer's address: "Tabla III. Codificación
 * Provincias y Municipios" of the e-CF format (Formato Comprobante Fiscal Electrónico (e-CF) v1.0,
 * from the Oficina Nacional de Estadística, updated 30 June 2014). A province is `PP0000`; a
 * municipality or municipal district (D. M.) of it is `PPMMDD` (`PPMM00` the municipality itself).
 * The codes are facts of that table; the lists below hold only the codes (names of provinces for messages).
 */
export const PROVINCES: Readonly<Record<string, string>> = {
  "010000": "Distrito Nacional",
  "020000": "Azua",
  "030000": "Bahoruco",
  "040000": "Barahona",
  "050000": "Dajabón",
  "060000": "Duarte",
  "070000": "Elías Piña",
  "080000": "El Seibo",
  "090000": "Espaillat",
  "100000": "Independencia",
  "110000": "La Altagracia",
  "120000": "La Romana",
  "130000": "La Vega",
  "140000": "María Trinidad Sánchez",
  "150000": "Monte Cristi",
  "160000": "Pedernales",
  "170000": "Peravia",
  "180000": "Puerto Plata",
  "190000": "Hermanas Mirabal",
  "200000": "Samaná",
  "210000": "San Cristóbal",
  "220000": "San Juan",
  "230000": "San Pedro De Macorís",
  "240000": "Sánchez Ramírez",
  "250000": "Santiago",
  "260000": "Santiago Rodríguez",
  "270000": "Valverde",
  "280000": "Monseñor Nouel",
  "290000": "Monte Plata",
  "300000": "Hato Mayor",
  "310000": "San José De Ocoa",
  "320000": "Santo Domingo",
};

/** The last four digits of each municipality / D. M. code, by the province's two digits. */
const MUNICIPALITY_SUFFIXES: Readonly<Record<string, string>> = {
  "01": "0100 0101",
  "02": "0100 0101 0102 0103 0104 0105 0106 0107 0108 0109 0200 0201 0202 0300 0301 0302 0303 0400 0401 0402 0403 0404 0405 0500 0501 0600 0601 0602 0603 0604 0700 0701 0702 0800 0801 0802 0803 0804 0900 0901 1000 1001",
  "03": "0001 0101 0102 0200 0201 0202 0300 0301 0302 0303 0304 0305 0306 0307 0400 0401 0500 0501 0502",
  "04": "0100 0101 0102 0103 0104 0200 0201 0300 0301 0302 0400 0401 0402 0500 0501 0502 0503 0504 0600 0601 0700 0701 0702 0800 0801 0802 0900 0901 1000 1001 1100 1101 1102",
  "05": "0100 0101 0102 0200 0201 0202 0203 0300 0301 0400 0401 0500 0501 0502",
  "06": "0100 0101 0102 0103 0104 0105 0200 0201 0202 0203 0300 0301 0400 0401 0500 0501 0502 0503 0504 0505 0600 0601 0700 0701 0702",
  "07": "0100 0101 0102 0103 0200 0201 0202 0203 0300 0301 0302 0400 0401 0402 0500 0501 0502 0600 0601",
  "08": "0100 0101 0102 0103 0104 0200 0201 0202 0203",
  "09": "0100 0101 0102 0103 0104 0105 0106 0107 0108 0109 0200 0201 0300 0301 0302 0303 0304 0400 0401",
  "10": "0100 0101 0102 0103 0200 0201 0202 0300 0301 0400 0401 0402 0500 0501 0502 0600 0601 0602",
  "11": "0100 0101 0102 0103 0104 0200 0201 0202 0203",
  "12": "0100 0101 0102 0200 0201 0300 0301 0302",
  "13": "0100 0101 0102 0103 0104 0105 0200 0201 0202 0203 0300 0301 0302 0303 0400 0401 0402",
  "14": "0100 0101 0102 0103 0104 0200 0201 0202 0203 0300 0301 0302 0400 0401",
  "15": "0100 0101 0200 0201 0202 0300 0301 0302 0303 0304 0400 0401 0500 0501 0502 0600 0601",
  "16": "0100 0101 0102 0200 0201 0202",
  "17": "0100 0101 0102 0103 0104 0105 0106 0107 0108 0109 0110 0200 0201 0202 0203 0300 0301",
  "18": "0100 0101 0102 0103 0200 0201 0202 0300 0301 0400 0401 0500 0501 0502 0600 0601 0602 0603 0604 0700 0701 0702 0703 0800 0801 0802 0803 0804 0900 0901",
  "19": "0100 0101 0102 0200 0201 0202 0300 0301",
  "20": "0100 0101 0102 0103 0104 0200 0201 0300 0301",
  "21": "0100 0101 0102 0103 0200 0201 0300 0301 0302 0303 0400 0401 0402 0500 0501 0502 0503 0504 0600 0601 0602 0700 0701 0800 0801",
  "22": "0100 0101 0102 0103 0104 0105 0106 0107 0108 0109 0110 0111 0200 0201 0202 0203 0300 0301 0302 0303 0400 0401 0402 0500 0501 0502 0503 0600 0601 0602",
  "23": "0100 0101 0200 0201 0202 0203 0300 0301 0400 0401 0500 0501 0600 0601",
  "24": "0100 0101 0102 0103 0104 0105 0106 0200 0201 0202 0300 0301 0400 0401 0402 0403 0404",
  "25": "0100 0101 0102 0104 0105 0106 0107 0200 0201 0300 0301 0302 0303 0400 0401 0402 0500 0501 0502 0503 0504 0600 0601 0602 0700 0701 0702 0703 0800 0801 0802 0803 0900 0901 1000 1001",
  "26": "0100 0101 0200 0201 0300 0301",
  "27": "0100 0101 0102 0103 0104 0200 0201 0202 0203 0204 0205 0300 0301 0302 0303 0304",
  "28": "0100 0101 0102 0103 0104 0105 0106 0200 0201 0300 0301 0302 0303",
  "29": "0100 0101 0102 0103 0104 0200 0201 0300 0301 0302 0303 0400 0402 0403 0500 0501",
  "30": "0100 0101 0102 0103 0104 0200 0201 0202 0300 0301",
  "31": "0100 0101 0102 0103 0104 0105 0200 0201 0300 0301",
  "32": "0100 0101 0102 0200 0201 0300 0301 0302 0400 0401 0402 0500 0501 0502 0600 0601 0602 0603 0700 0701 0702 0703",
};

const MUNICIPALITIES: ReadonlySet<string> = new Set(
  Object.entries(MUNICIPALITY_SUFFIXES).flatMap(([province, suffixes]) => suffixes.split(" ").map((suffix) => province + suffix)),
);

export const isProvinceCode = (code: string): boolean => Object.hasOwn(PROVINCES, code);

/** The codes of the table as patterns for the OpenAPI document, spaces around them allowed (the fields trim). */
export const PROVINCE_CODE_PATTERN = `^\\s*(?:${Object.keys(PROVINCES)
  .map((code) => code.slice(0, 2))
  .join("|")})0000\\s*$`;
export const MUNICIPALITY_CODE_PATTERN = `^\\s*(?:${Object.entries(MUNICIPALITY_SUFFIXES)
  .map(([province, suffixes]) => `${province}(?:${suffixes.split(" ").join("|")})`)
  .join("|")})\\s*$`;

export const isMunicipalityCode = (code: string): boolean => MUNICIPALITIES.has(code);

/** A municipality belongs to the province of its first two digits. */
export const provinceOfMunicipality = (code: string): string => `${code.slice(0, 2)}0000`;
