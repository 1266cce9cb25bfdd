import type { ScannedPage } from "../scanner/site_scan.ts";
import { pageAddress } from "../scanner/target_url.ts";
import type { AdvisoryPage } from "./advisory.ts";

/** Visible text of the target sent to the model, in characters. */
export const TARGET_TEXT_CHARS = 4_000;
/** Visible text of each other page sent to the model, in characters. */
export const PAGE_TEXT_CHARS = 1_000;
const MAX_HEADINGS = 20;
const MAX_FIELDS = 30;
const MAX_FACT_CHARS = 120;

/**
 * The bounded extract of the scanned pages the advisory model reads: per page
 * its address (origin and path: never the query or fragment, which can carry
 * a session id a redirect added), kind, title, up to 20 headings, up to 30 form fields, the chat
 * widgets recognised, and its visible text (TARGET_TEXT_CHARS for the
 * target, PAGE_TEXT_CHARS for the others). Hidden text, attributes and
 * scripts are never sent.
 */
export function advisoryPages(pages: readonly ScannedPage[]): AdvisoryPage[] {
  return pages.map((page) => ({
    url: pageAddress(page.url),
    kind: page.kind,
    title: clip(page.facts.title, MAX_FACT_CHARS),
    headings: page.facts.headings.slice(0, MAX_HEADINGS).map((h) => clip(h.text, MAX_FACT_CHARS)),
    text: clip(
      visibleText(page),
      page.kind === "target" ? TARGET_TEXT_CHARS : PAGE_TEXT_CHARS,
    ),
    form_fields: page.facts.forms.flatMap((form) => form.fields).slice(0, MAX_FIELDS).map((f) =>
      clip([f.name, f.type, f.label].filter((part) => part !== "").join(" "), MAX_FACT_CHARS)
    ),
    chat_widgets: page.chatWidgets.map((widget) => widget.vendor),
  }));
}

function visibleText(page: ScannedPage): string {
  const parts: string[] = [];
  let length = 0;
  for (const piece of page.document.pieces) {
    if (piece.where !== "text") continue;
    parts.push(piece.text);
    length += piece.text.length;
    if (length > TARGET_TEXT_CHARS * 4) break;
  }
  return parts.join(" ");
}

function clip(text: string, chars: number): string {
  const squashed = text.replace(/\s+/g, " ").trim();
  return squashed.length <= chars ? squashed : squashed.slice(0, chars).replace(/\s+\S*$/, "");
}
