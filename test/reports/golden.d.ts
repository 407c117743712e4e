/** A golden file read as text by Vite's `?raw` import, its bytes untouched (CRLF line ends included). */
declare module "*.txt?raw" {
  const text: string;
  export default text;
}

/** A migration's SQL, read as text (a test runs it again over tenants made to predate it). */
declare module "*.sql?raw" {
  const text: string;
  export default text;
}
