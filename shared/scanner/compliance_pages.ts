import type { PageFacts } from "../engine/mod.ts";

type PageLink = PageFacts["links"][number];

/** The kinds of page that matter for compliance, in the order they are chosen. */
export const COMPLIANCE_PAGE_KINDS = [
  "privacy",
  "terms",
  "accessibility",
  "contact",
  "chat",
] as const;
export type CompliancePageKind = typeof COMPLIANCE_PAGE_KINDS[number];

/** At most this many pages besides the target: one of each kind. */
export const MAX_COMPLIANCE_PAGES = COMPLIANCE_PAGE_KINDS.length;

/** What a link's text or path says when it leads to a page of a kind. */
const KIND_PATTERNS: Record<CompliancePageKind, RegExp> = {
  privacy: /\bprivacy\b|\bdo not sell\b|\bdata protection\b|\bcookie policy\b/,
  terms: /\bterms\b|\bconditions\b|\btos\b|\bterms of (?:use|service)\b|\blegal\b/,
  accessibility: /\baccessibility\b|\ba11y\b/,
  contact: /\bcontact\b/,
  chat: /\bchat\b|\blive ?chat\b|\bsupport\b|\bhelp\b|\bassistant\b|\bchatbot\b/,
};

/** Paths that are clearly not HTML pages. */
const NOT_HTML =
  /\.(?:pdf|docx?|xlsx?|pptx?|zip|gz|png|jpe?g|gif|svg|webp|mp[34]|mov|csv|txt|xml|json)$/i;

/** A page worth scanning besides the target. */
export interface CompliancePage {
  kind: CompliancePageKind;
  /** Absolute, without fragment. */
  url: string;
}

/**
 * The pages that matter for compliance among a page's links: at most one of
 * each kind (privacy policy, terms, accessibility, contact, chat or support),
 * the first link in page order that names it in its text or path. Only
 * http(s) links of the page's own origin count, never the page itself, never
 * a file that is clearly not HTML.
 */
export function compliancePages(links: readonly PageLink[], pageUrl: string): CompliancePage[] {
  const page = new URL(pageUrl);
  page.hash = "";
  const chosen: CompliancePage[] = [];
  const taken = new Set<string>([page.href]);
  const candidates: { url: string; words: string }[] = [];
  for (const link of links) {
    const href = link.href.trim();
    if (href === "" || href.length > 2048 || !URL.canParse(href, page)) continue;
    const url = new URL(href, page);
    url.hash = "";
    if (url.origin !== page.origin || !/^https?:$/.test(url.protocol)) continue;
    if (NOT_HTML.test(url.pathname)) continue;
    candidates.push({ url: url.href, words: linkWords(link.text, url) });
  }
  for (const kind of COMPLIANCE_PAGE_KINDS) {
    const match = candidates.find((c) => !taken.has(c.url) && KIND_PATTERNS[kind].test(c.words));
    if (match === undefined) continue;
    taken.add(match.url);
    chosen.push({ kind, url: match.url });
  }
  return chosen;
}

/** A link's text and path as lower-case words: `/privacy-policy` reads "privacy policy". */
function linkWords(text: string, url: URL): string {
  let path = url.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // keep it encoded
  }
  return `${text} ${path}`.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ");
}
