/**
 * The seam between plain content and the HTML reader (html.ts, over
 * linkedom): whether content looks like HTML is decided here, cheaply, and
 * html.ts registers itself when it is loaded. So an operation whose content
 * is rarely HTML (complianceAudit) imports linkedom only when it meets HTML:
 * `await loadHtmlReader()` before evaluating such content. Importing html.ts
 * (or the engine's mod.ts) loads it for good.
 *
 * @module
 */
import type { Document } from "./document.ts";

const TAG_LIKE = /<(?:[a-z][a-z0-9-]{0,20}[\s/>]|!--|!doctype|\/[a-z])/i;

/** Cheap test: does the content contain something tag-like? */
export function looksLikeHtml(content: string): boolean {
  // No "<", no tag: indexOf skips a long plain text far faster than the pattern.
  return content.includes("<") && TAG_LIKE.test(content);
}

let reader: ((html: string) => Document) | undefined;

/** Called by html.ts when it loads. */
export function registerHtmlReader(read: (html: string) => Document): void {
  reader = read;
}

/** Loads the HTML reader (and linkedom) unless it is loaded already. */
export async function loadHtmlReader(): Promise<void> {
  if (reader === undefined) await import("./html.ts");
}

/** HTML content as a document; the reader must be loaded (loadHtmlReader, or an import of html.ts). */
export function readHtmlContent(html: string): Document {
  if (reader === undefined) {
    throw new Error("The HTML reader is not loaded: await loadHtmlReader() first");
  }
  return reader(html);
}
