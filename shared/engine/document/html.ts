/**
 * HTML into the document model, in one walk of the DOM (linkedom): visible
 * text, and apart from it what sits only in attributes (alt, title,
 * aria-label, placeholder), meta tags and the page title, hidden elements and
 * tiny or faint text (style.ts). Chat bubbles (elements whose class or
 * data-role/data-sender names a speaker) become dialogue turns.
 *
 * The same walk collects the page facts the website scanner checks: headings,
 * links, scripts, iframes, forms and their fields, and meta tags.
 *
 * @module
 */
import { parseHTML } from "linkedom";
import { DocumentBuilder } from "./builder.ts";
import { looksLikeHtml, registerHtmlReader } from "./html_reader.ts";
import type { Document, Role, Where } from "./document.ts";
import {
  contrastRatio,
  FAINT_CONTRAST,
  parseStyleRules,
  type StyleFacts,
  styleFacts,
  type StyleRules,
} from "./style.ts";

/** A heading of the page. */
export interface PageHeading {
  level: number;
  text: string;
}
/** A link of the page. */
export interface PageLink {
  href: string;
  text: string;
}
/** A script: its source URL, or the first characters of an inline script. */
export interface PageScript {
  src: string | null;
  inline: string | null;
}
/** An iframe. */
export interface PageFrame {
  src: string;
  title: string;
}
/** A form field. */
export interface PageField {
  name: string;
  type: string;
  label: string;
}
/** A form and the data it asks for. */
export interface PageForm {
  action: string;
  fields: PageField[];
}

/** What the scanner reads of a page besides its text. */
export interface PageFacts {
  title: string;
  headings: PageHeading[];
  links: PageLink[];
  scripts: PageScript[];
  iframes: PageFrame[];
  forms: PageForm[];
  meta: Record<string, string>;
}

const DOCUMENT_LIKE = /<(?:html|body|head)[\s>]/i;

export { looksLikeHtml };

/** Host names an inline script loads from (at most five, from its first 8,000 characters). */
const SCRIPT_HOST = /\/\/([a-z0-9-]+(?:\.[a-z0-9-]+)+)/gi;
function scriptHosts(code: string): string {
  const hosts: string[] = [];
  for (const match of code.slice(0, 8000).matchAll(SCRIPT_HOST)) {
    if (!hosts.includes(match[1])) hosts.push(match[1]);
    if (hosts.length === 5) break;
  }
  return hosts.join(" ");
}

const SKIPPED = new Set(["SCRIPT", "STYLE", "TEMPLATE", "NOSCRIPT", "OBJECT", "CANVAS", "SVG"]);
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
  "LEGEND",
  "LI",
  "MAIN",
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
  "TR",
  "UL",
]);
const TEXT_ATTRIBUTES = ["alt", "title", "aria-label", "placeholder"] as const;
const META_NAMES =
  /^(?:description|keywords|author|generator|og:[a-z_:]{1,40}|twitter:[a-z_:]{1,40}|ai[-_:a-z]{0,40}|c2pa[-_:a-z]{0,40}|robots)$/;
const USER_TOKENS = new Set([
  "user",
  "customer",
  "visitor",
  "human",
  "me",
  "outgoing",
  "sent",
  "self",
  "client",
  "patient",
]);
const BOT_TOKENS = new Set([
  "bot",
  "assistant",
  "agent",
  "ai",
  "operator",
  "incoming",
  "received",
  "system",
  "chatbot",
  "reply",
]);
const MESSAGE_TOKENS = new Set([
  "msg",
  "message",
  "bubble",
  "turn",
  "utterance",
  "chat",
  "messages",
]);

interface DomNode {
  nodeType: number;
  nodeName: string;
  nodeValue: string | null;
  firstChild: DomNode | null;
  nextSibling: DomNode | null;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  textContent: string | null;
  attributes?: ArrayLike<{ name: string; value: string }>;
}

/** Visibility of text, from most to least visible. */
const enum Seen {
  Visible = 0,
  Tiny = 1,
  Hidden = 2,
}

interface Frame {
  node: DomNode;
  seen: Seen;
  color: number | undefined;
  background: number | undefined;
  exit: boolean;
  block: boolean;
  turn: boolean;
}

/** The document and page facts of an HTML content. */
export interface HtmlReading {
  document: Document;
  page: PageFacts;
}

/** Reads HTML into a document and its page facts. */
export function readHtml(html: string, options: { facts?: boolean } = {}): HtmlReading {
  // Page facts (headings, links, scripts, forms) are for the website scan; an audit of HTML
  // content needs only the document.
  const wantFacts = options.facts ?? true;
  const source = DOCUMENT_LIKE.test(html)
    ? html
    : `<!doctype html><html><head></head><body>${html}</body></html>`;
  // linkedom types its result with DOM lib types Deno does not load; only this shape is used.
  const { document } = parseHTML(source) as unknown as {
    document: { documentElement: DomNode | null; querySelectorAll(s: string): ArrayLike<DomNode> };
  };
  const page: PageFacts = {
    title: "",
    headings: [],
    links: [],
    scripts: [],
    iframes: [],
    forms: [],
    meta: {},
  };
  const builder = new DocumentBuilder("html");
  const root = document.documentElement;
  if (root === null) return { document: builder.build(), page };

  const rules: StyleRules = new Map();
  const styles = document.querySelectorAll("style");
  for (let i = 0; i < styles.length; i += 1) parseStyleRules(styles[i].textContent ?? "", rules);

  let run = "";
  let runWhere: Where = "text";
  const flushRun = () => {
    if (run.trim() !== "") builder.addPiece(run, { where: runWhere, lines: "inline" });
    run = "";
  };
  const attributePiece = (text: string, where: Where, label: string) => {
    flushRun();
    builder.newBlock();
    builder.addPiece(text, { where, label, lines: "inline" });
    builder.newBlock();
  };

  let form: PageForm | null = null;
  let inTurn = 0;
  const stack: Frame[] = [{
    node: root,
    seen: Seen.Visible,
    color: undefined,
    background: undefined,
    exit: false,
    block: false,
    turn: false,
  }];
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    const node = frame.node;
    if (frame.exit) {
      if (frame.block || frame.turn) flushRun();
      if (frame.turn) {
        builder.endTurn();
        inTurn -= 1;
      } else if (frame.block) builder.newBlock();
      if (node.nodeName === "FORM") form = null;
      continue;
    }
    if (node.nodeType === 3) {
      const text = node.nodeValue;
      if (text === null || text === "") continue;
      const where: Where = frame.seen === Seen.Hidden
        ? "hidden"
        : frame.seen === Seen.Tiny
        ? "tiny"
        : "text";
      if (where !== runWhere) {
        flushRun();
        runWhere = where;
      }
      run += text;
      continue;
    }
    if (node.nodeType === 8) {
      // A comment: never shown, but it can say what the page hides.
      const text = node.nodeValue;
      if (text !== null && text.trim() !== "") attributePiece(text, "hidden", "comment");
      continue;
    }
    if (node.nodeType !== 1) continue;
    const name = node.nodeName.toUpperCase();
    if (wantFacts) collectFacts(node, name, page, form);
    if (name === "FORM") {
      form = { action: node.getAttribute("action") ?? "", fields: [] };
      page.forms.push(form);
    }
    if (name === "TITLE") {
      const title = (node.textContent ?? "").trim();
      page.title ||= title;
      if (title !== "") attributePiece(title, "meta", "title");
      continue;
    }
    if (name === "META") {
      const key = (node.getAttribute("name") ?? node.getAttribute("property") ?? "").toLowerCase();
      const content = node.getAttribute("content");
      if (content && key !== "") {
        page.meta[key] = content;
        if (META_NAMES.test(key)) attributePiece(content, "meta", key);
      }
      continue;
    }
    if (SKIPPED.has(name) || name === "IFRAME") {
      // A widget's script or frame names its vendor in its source and is configured in
      // data-* attributes: both are read as hidden text ("script", "iframe", "data-*"), so
      // rules can recognise a chat widget; the script's code is not read.
      if (name === "SCRIPT" || name === "IFRAME") {
        const src = node.getAttribute("src");
        if (src) attributePiece(sourceWithoutQuery(src), "hidden", name.toLowerCase());
        else if (name === "SCRIPT") {
          // An inline loader ("s.src = 'https://js.driftt.com/...'") names its vendor by host.
          const hosts = scriptHosts(node.textContent ?? "");
          if (hosts !== "") attributePiece(hosts, "hidden", "script");
        }
      }
      for (const { name: attribute, value } of dataAttributes(node)) {
        if (/[A-Za-z]{2}/.test(value)) attributePiece(value, "hidden", attribute);
      }
      continue;
    }

    // Visibility, inherited: hidden wins over tiny.
    let seen = frame.seen;
    let color = frame.color;
    let background = frame.background;
    if (
      node.hasAttribute("hidden") || (name === "INPUT" && node.getAttribute("type") === "hidden")
    ) {
      seen = Seen.Hidden;
    }
    const facts = elementStyle(node, name, rules);
    if (facts !== null) {
      if (facts.hidden) seen = Seen.Hidden;
      else if (facts.tiny && seen < Seen.Tiny) seen = Seen.Tiny;
      if (facts.color !== undefined) color = facts.color;
      if (facts.background !== undefined) background = facts.background;
      if (
        seen === Seen.Visible && color !== undefined && background !== undefined &&
        contrastRatio(color, background) < FAINT_CONTRAST
      ) seen = Seen.Tiny;
    }

    const block = BLOCKS.has(name);
    const role = inTurn === 0 ? speakerOf(node) : null;
    if (role !== null) {
      flushRun();
      builder.startTurn(role);
      inTurn += 1;
    } else if (block) {
      flushRun();
      builder.newBlock();
    }

    for (const attribute of TEXT_ATTRIBUTES) {
      const value = node.getAttribute(attribute);
      if (value && value.trim() !== "") {
        attributePiece(value, seen === Seen.Hidden ? "hidden" : "attribute", attribute);
      }
    }
    // data-* attributes describe an element to scripts: never shown, read as hidden text.
    for (const { name: attribute, value } of dataAttributes(node)) {
      if (/[A-Za-z]{2}/.test(value)) attributePiece(value, "hidden", attribute);
    }
    if (name === "INPUT" || name === "SELECT" || name === "TEXTAREA") {
      // What a form collects: its fields' names ("ssn", "date_of_birth") are read as
      // attribute text, so rules see the data a form asks for even without labels.
      const field = node.getAttribute("name") ?? node.getAttribute("id");
      if (field && /[A-Za-z]{2}/.test(field)) {
        attributePiece(field.replace(/[_\-.[\]]+/g, " ").slice(0, 100), "attribute", "field name");
      }
    }
    if (name === "INPUT") {
      const type = (node.getAttribute("type") ?? "").toLowerCase();
      const value = node.getAttribute("value");
      if (value && (type === "submit" || type === "button")) {
        attributePiece(
          value,
          seen === Seen.Hidden ? "hidden" : seen === Seen.Tiny ? "tiny" : "text",
          "value",
        );
      }
    }

    stack.push({ node, seen, color, background, exit: true, block, turn: role !== null });
    // Children in document order: pushed last-first.
    const children: DomNode[] = [];
    for (let child = node.firstChild; child !== null; child = child.nextSibling) {
      children.push(child);
    }
    for (let i = children.length - 1; i >= 0; i -= 1) {
      stack.push({
        node: children[i],
        seen,
        color,
        background,
        exit: false,
        block: false,
        turn: false,
      });
    }
  }
  flushRun();
  return { document: builder.build(), page };
}

/** data-* names that may hold a credential (`data-app-key`, `data-token`): never read. */
const SECRET_LIKE_ATTRIBUTE = /key|token|secret|auth|pass|sig|session|credential|nonce/i;

/**
 * A script's or frame's source as the rules read it: where it loads from (host
 * and path, which name a widget's vendor), never its query or fragment, which
 * can carry an app key or a session token.
 */
function sourceWithoutQuery(src: string): string {
  const cut = src.search(/[?#]/);
  return (cut < 0 ? src : src.slice(0, cut)).slice(0, 500);
}

function dataAttributes(node: DomNode): { name: string; value: string }[] {
  const attributes = node.attributes;
  if (attributes === undefined) return [];
  const out: { name: string; value: string }[] = [];
  for (let i = 0; i < attributes.length && out.length < 20; i += 1) {
    const attribute = attributes[i];
    if (
      attribute.name.startsWith("data-") && attribute.value.length <= 500 &&
      !SECRET_LIKE_ATTRIBUTE.test(attribute.name)
    ) {
      out.push({ name: attribute.name, value: attribute.value });
    }
  }
  return out;
}

function elementStyle(node: DomNode, name: string, rules: StyleRules): StyleFacts | null {
  const inline = node.getAttribute("style");
  let facts: StyleFacts | null = null;
  if (rules.size > 0) {
    const tag = name.toLowerCase();
    facts = merge(facts, rules.get(tag));
    const id = node.getAttribute("id");
    if (id) facts = merge(facts, rules.get(`#${id.toLowerCase()}`));
    const classes = node.getAttribute("class");
    if (classes) {
      for (const cls of classes.toLowerCase().split(/\s+/)) {
        if (cls === "") continue;
        facts = merge(facts, rules.get(`.${cls}`));
        facts = merge(facts, rules.get(`${tag}.${cls}`));
      }
    }
  }
  if (inline) facts = merge(facts, styleFacts(inline));
  return facts;
}

function merge(into: StyleFacts | null, more: StyleFacts | undefined): StyleFacts | null {
  if (more === undefined) return into;
  return into === null ? { ...more } : Object.assign(into, more);
}

function speakerOf(node: DomNode): Role | null {
  const named = node.getAttribute("data-role") ?? node.getAttribute("data-sender") ??
    node.getAttribute("data-author") ?? node.getAttribute("data-speaker");
  if (named !== null) {
    const value = named.toLowerCase().trim();
    if (USER_TOKENS.has(value)) return "user";
    if (BOT_TOKENS.has(value)) return "bot";
  }
  const classes = node.getAttribute("class");
  if (!classes) return null;
  const tokens = classes.toLowerCase().split(/[\s_-]+/);
  if (!tokens.some((token) => MESSAGE_TOKENS.has(token))) return null;
  if (tokens.some((token) => USER_TOKENS.has(token))) return "user";
  if (tokens.some((token) => BOT_TOKENS.has(token))) return "bot";
  return null;
}

function collectFacts(node: DomNode, name: string, page: PageFacts, form: PageForm | null): void {
  switch (name) {
    case "H1":
    case "H2":
    case "H3":
    case "H4":
    case "H5":
    case "H6":
      page.headings.push({ level: Number(name[1]), text: squash(node.textContent) });
      return;
    case "A": {
      const href = node.getAttribute("href");
      if (href !== null) page.links.push({ href, text: squash(node.textContent) });
      return;
    }
    case "SCRIPT": {
      const src = node.getAttribute("src");
      page.scripts.push({
        src,
        inline: src === null ? (node.textContent ?? "").slice(0, 2000) : null,
      });
      return;
    }
    case "IFRAME":
      page.iframes.push({
        src: node.getAttribute("src") ?? "",
        title: node.getAttribute("title") ?? "",
      });
      return;
    case "INPUT":
    case "SELECT":
    case "TEXTAREA":
      form?.fields.push({
        name: node.getAttribute("name") ?? node.getAttribute("id") ?? "",
        type: (node.getAttribute("type") ?? name.toLowerCase()).toLowerCase(),
        label: node.getAttribute("aria-label") ?? node.getAttribute("placeholder") ?? "",
      });
  }
}

function squash(text: string | null): string {
  return (text ?? "").replace(/\s+/g, " ").trim().slice(0, 300);
}

// Content that looks like HTML is read here once this module is loaded (html_reader.ts).
registerHtmlReader((html) => readHtml(html, { facts: false }).document);
