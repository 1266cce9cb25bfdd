/**
 * Readable text of HTML content: visible text plus the attributes a reader or
 * assistive technology is shown (alt, title, aria-label, placeholder, button
 * values) and descriptive meta tags (description, Open Graph, Twitter cards).
 * Script, style and template bodies and elements marked hidden are dropped.
 * Block elements are separated by a blank line so that phrases never join
 * words across blocks.
 *
 * @module
 */
import { parseHTML } from "linkedom";

const TAG_LIKE = /<(?:[a-z][a-z0-9-]{0,20}[\s/>]|!--|!doctype|\/[a-z])/i;
const DOCUMENT_LIKE = /<(?:html|body|head)[\s>]/i;

const SKIPPED = new Set(["SCRIPT", "STYLE", "TEMPLATE", "IFRAME", "OBJECT", "CANVAS"]);
const BLOCKS = new Set([
  "ADDRESS",
  "ARTICLE",
  "ASIDE",
  "BLOCKQUOTE",
  "BODY",
  "BR",
  "BUTTON",
  "CAPTION",
  "DD",
  "DETAILS",
  "DIALOG",
  "DIV",
  "DL",
  "DT",
  "FIELDSET",
  "FIGCAPTION",
  "FIGURE",
  "FOOTER",
  "FORM",
  "H1",
  "H2",
  "H3",
  "H4",
  "H5",
  "H6",
  "HEAD",
  "HEADER",
  "HR",
  "HTML",
  "IMG",
  "INPUT",
  "LABEL",
  "LI",
  "MAIN",
  "META",
  "NAV",
  "OL",
  "OPTION",
  "P",
  "PRE",
  "SECTION",
  "SELECT",
  "SUMMARY",
  "TABLE",
  "TD",
  "TEXTAREA",
  "TH",
  "TITLE",
  "TR",
  "UL",
]);
const TEXT_ATTRIBUTES = ["alt", "title", "aria-label", "placeholder"];
const META_NAMES = /^(?:description|keywords|author|og:[a-z_:]{1,40}|twitter:[a-z_:]{1,40})$/;
const HIDDEN_STYLE = /display\s{0,3}:\s{0,3}none|visibility\s{0,3}:\s{0,3}hidden/i;

/** Cheap test: does the content contain something tag-like? */
export function looksLikeHtml(content: string): boolean {
  return TAG_LIKE.test(content);
}

interface DomNode {
  nodeType: number;
  nodeName: string;
  nodeValue: string | null;
  childNodes: ArrayLike<DomNode>;
  getAttribute?: (name: string) => string | null;
  hasAttribute?: (name: string) => boolean;
}

/** Extracts readable text and relevant attribute values from HTML. */
export function extractHtmlText(html: string): string {
  const source = DOCUMENT_LIKE.test(html)
    ? html
    : `<!doctype html><html><head></head><body>${html}</body></html>`;
  // linkedom types its result with DOM lib types Deno does not load; only this shape is used.
  const { document } = parseHTML(source) as unknown as { document: { documentElement: unknown } };
  const root = document.documentElement as DomNode | null;
  if (root === null) return "";
  const parts: string[] = [];
  // Iterative walk: deeply nested markup must not exhaust the stack.
  const stack: DomNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as DomNode;
    if (node.nodeType === 3) {
      if (node.nodeValue) parts.push(node.nodeValue);
      continue;
    }
    if (node.nodeType === 0) {
      parts.push("\n\n"); // block end marker pushed below
      continue;
    }
    if (node.nodeType !== 1) continue;
    const name = node.nodeName.toUpperCase();
    if (SKIPPED.has(name) || isHidden(node)) continue;
    const block = BLOCKS.has(name);
    if (block) parts.push("\n\n");
    pushAttributes(node, name, parts);
    if (block) stack.push(BLOCK_END);
    const children = node.childNodes;
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i]);
  }
  return parts.join("");
}

const BLOCK_END: DomNode = { nodeType: 0, nodeName: "", nodeValue: null, childNodes: [] };

function isHidden(node: DomNode): boolean {
  if (node.hasAttribute?.("hidden")) return true;
  const style = node.getAttribute?.("style");
  return typeof style === "string" && HIDDEN_STYLE.test(style);
}

function pushAttributes(node: DomNode, name: string, parts: string[]): void {
  const get = node.getAttribute;
  if (get === undefined) return;
  if (name === "META") {
    const key = (get.call(node, "name") ?? get.call(node, "property") ?? "").toLowerCase();
    const content = get.call(node, "content");
    if (content && META_NAMES.test(key)) parts.push(" ", content, "\n\n");
    return;
  }
  for (const attribute of TEXT_ATTRIBUTES) {
    const value = get.call(node, attribute);
    if (value) parts.push(" ", value, "\n\n");
  }
  if (name === "INPUT") {
    const type = (get.call(node, "type") ?? "").toLowerCase();
    const value = get.call(node, "value");
    if (value && (type === "submit" || type === "button")) parts.push(" ", value, "\n\n");
  }
}
