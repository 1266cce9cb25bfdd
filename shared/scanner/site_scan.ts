import { type CompiledRulebook, type Document, type PageFacts, readHtml } from "../engine/mod.ts";
import { type ChatWidget, detectChatWidgets } from "./chat_vendors.ts";
import {
  type CompliancePageKind,
  compliancePages,
  MAX_COMPLIANCE_PAGES,
} from "./compliance_pages.ts";
import { ScanError } from "./scan_error.ts";
import type { FetchedPage, ScanSession } from "./scan_session.ts";
import { judgesPage } from "./site_report.ts";

/**
 * Fewer visible words than this is a page with no readable content: a shell
 * that script renders in the browser, or an empty page. The scanner runs no
 * script, so it judges such a page only when the rulebook finds something in
 * it (a chat widget's script, say: {@linkcode judgesPage}).
 */
export const MIN_READABLE_WORDS = 5;

/**
 * Body cap of each compliance page, in bytes (the target keeps the fetcher's
 * 2 MiB): reading HTML is the costliest step of a scan, and the head of a
 * policy page is what a visitor reads.
 */
export const COMPLIANCE_PAGE_BYTES = 512 * 1024;

/** One page of a site scan, read into the engine's document model. */
export interface ScannedPage {
  /** `target` for the caller's page, else the kind of compliance page it is. */
  kind: "target" | CompliancePageKind;
  /** The final URL, after redirects. */
  url: string;
  status: number;
  document: Document;
  facts: PageFacts;
  /** Chat widgets chat_vendors.ts recognises: labels for the advisory, never a gate. */
  chatWidgets: ChatWidget[];
  /** The body was longer than the page cap and only its head was read. */
  truncated: boolean;
}

/** What a site scan read. */
export interface SiteScan {
  /** The target first, then the compliance pages that could be read. */
  pages: ScannedPage[];
  /** Compliance pages found but not read, with the reason (a ScanError reason, or `status`). */
  skipped: { kind: CompliancePageKind; reason: string }[];
}

/** Options of {@linkcode scanSite}. */
export interface ScanSiteOptions {
  /** Compliance pages read besides the target; default and at most MAX_COMPLIANCE_PAGES. */
  maxPages?: number;
  /**
   * The pinned rulebook the scan is judged by. A target without readable
   * content is scanned only when this rulebook finds something to judge on
   * it; without a rulebook, such a target is always refused.
   */
  rulebook?: CompiledRulebook;
  /** The evaluation date of that judgement (statutes' effective dates); default now. */
  at?: Date;
}

/**
 * Scans the target and the pages of its site that matter for compliance,
 * every fetch through `session` (the SSRF policy, robots rules and limits of
 * the safe fetcher):
 *
 * 1. the target, which must answer 2xx with HTML (else the ScanError of its
 *    status: 403, 415 or 502; a 4xx or other non-2xx final answer is a 502
 *    `target_status`);
 * 2. a target with fewer than MIN_READABLE_WORDS visible words on which
 *    `options.rulebook` finds nothing to judge ({@linkcode judgesPage}: no
 *    website rule applies with evidence, e.g. no chat widget any rule names)
 *    is unsupported: 415 `no_readable_content`;
 * 3. up to `maxPages` same-origin compliance pages it links to (privacy,
 *    terms, accessibility, contact, chat), one after another, each read up
 *    to COMPLIANCE_PAGE_BYTES. One that is
 *    refused, disallowed, not HTML, not 2xx or unreachable is skipped; when
 *    the scan's time budget runs out, the pages read so far are kept.
 *
 * @throws {ScanError} for the target; and 502 `aborted` when the session's
 *   signal (the caller's) aborts while any page is fetched, compliance pages
 *   included, so that the handler does not report, advise on or store a
 *   scan no one waits for.
 */
export async function scanSite(
  session: ScanSession,
  targetUrl: string,
  options: ScanSiteOptions = {},
): Promise<SiteScan> {
  const fetched = await session.fetchPage(targetUrl);
  if (fetched.status < 200 || fetched.status > 299) {
    throw new ScanError(
      "unreachable",
      "target_status",
      `The target answered with HTTP status ${fetched.status}, not a page to scan`,
    );
  }
  const target = readPage(fetched, "target");
  if (
    !hasReadableContent(target.document) &&
    !(options.rulebook !== undefined &&
      judgesPage(options.rulebook, target.document, { at: options.at }))
  ) {
    throw new ScanError(
      "unsupported_content_type",
      "no_readable_content",
      "The page has no readable content and nothing the rules judge, such as a chat widget: pages rendered by script are not supported",
    );
  }
  const pages = [target];
  const skipped: SiteScan["skipped"] = [];
  const limit = Math.min(options.maxPages ?? MAX_COMPLIANCE_PAGES, MAX_COMPLIANCE_PAGES);
  for (const link of compliancePages(target.facts.links, target.url).slice(0, limit)) {
    try {
      const page = await session.fetchPage(link.url, { maxBytes: COMPLIANCE_PAGE_BYTES });
      if (page.status < 200 || page.status > 299) {
        skipped.push({ kind: link.kind, reason: "status" });
        continue;
      }
      pages.push(readPage(page, link.kind));
    } catch (error) {
      if (!(error instanceof ScanError) || error.kind === "internal") throw error;
      // The caller gave up: no one waits for a report, so none is made (only the budget keeps pages).
      if (error.reason === "aborted") throw error;
      skipped.push({ kind: link.kind, reason: error.reason });
      if (error.reason === "scan_budget") break;
    }
  }
  return { pages, skipped };
}

function readPage(fetched: FetchedPage, kind: ScannedPage["kind"]): ScannedPage {
  const { document, page } = readHtml(fetched.body);
  return {
    kind,
    url: fetched.url,
    status: fetched.status,
    document,
    facts: page,
    chatWidgets: detectChatWidgets(page, fetched.url),
    truncated: fetched.truncated,
  };
}

/** Whether the page shows at least MIN_READABLE_WORDS words of visible text. */
export function hasReadableContent(document: Document): boolean {
  let words = 0;
  for (let i = 0; i < document.length && words < MIN_READABLE_WORDS; i += 1) {
    if (document.pieces[document.piece[i]].where === "text") words += 1;
  }
  return words >= MIN_READABLE_WORDS;
}
