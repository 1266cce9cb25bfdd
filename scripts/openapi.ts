/**
 * Writes openapi.json (OpenAPI 3.1) from the contract's zod schemas
 * (shared/contract/openapi.ts). Run after changing a schema, and commit the
 * file: tests/contract/openapi_test.ts fails while it differs.
 * Run: deno task openapi
 */
import { openApiDocument } from "../shared/contract/openapi.ts";

/** The file's text: the document as formatted JSON. */
export function openApiText(): string {
  return JSON.stringify(openApiDocument(), null, 2) + "\n";
}

if (import.meta.main) {
  const target = new URL("../openapi.json", import.meta.url);
  await Deno.writeTextFile(target, openApiText());
  console.log("wrote openapi.json");
}
