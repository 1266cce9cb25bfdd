/**
 * HTML into the document model, in one walk of the DOM: by default the
 * minimal DOM light_dom.ts builds straight from htmlparser2's events (the
 * parser and options linkedom uses), or linkedom's own DOM of the same parse
 * (`dom: "linkedom"`, the reference the tests hold it to). The walk reads
 * visible text, and apart from it what sits only in attributes (alt, title,
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
import { parseLight } from "./light_dom.ts";
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

const SKIPPED = new Set(["SCRIPT", "STYLE", "TEMPLATE", "OBJECT", "CANVAS", "SVG"]);
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
/**
 * Meta tags whose content is read as text (`meta`): any name but those that
 * carry a token, a key or a setting (site verification, CSRF, viewport...).
 */
const META_NOT_READ =
  /(?:verif|token|key|secret|csrf|nonce|auth|session|viewport|theme-color|charset|referrer|format-detection|http-equiv|msapplication|apple-|google-site|facebook-domain|p:domain|norton|yandex|bing|alexa|baidu|pinterest)/;
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
  localName: string;
  nodeValue: string | null;
  firstChild: DomNode | null;
  nextSibling: DomNode | null;
  getAttribute(name: string): string | null;
  getAttributeNode(name: string): { value: string } | null;
  getAttributeNames(): ArrayLike<string>;
  hasAttribute(name: string): boolean;
  hasAttributes(): boolean;
  textContent: string | null;
}

/** Visibility of text, from most to least visible. */
const enum Seen {
  Visible = 0,
  Tiny = 1,
  Hidden = 2,
}

/**
 * An element open in the walk: what it passes to its children, and the next
 * child to visit. A frame is reused by the next element opened at its depth.
 */
interface Frame {
  node: DomNode;
  name: string;
  seen: Seen;
  color: number | undefined;
  background: number | undefined;
  block: boolean;
  turn: boolean;
  /** What a `<summary>` child starts from: a closed `<details>` hides everything else. */
  summarySeen: Seen;
  child: DomNode | null;
}

/**
 * An element's attributes, read once: linkedom's getAttribute walks the
 * attribute list on every call (and rebuilds `class` from a token list), so
 * the walk reads names and values into these arrays and looks them up here.
 */
class Attributes {
  names: string[] = [];
  values: string[] = [];
  size = 0;

  read(node: DomNode): this {
    this.size = 0;
    if (!node.hasAttributes()) return this;
    const names = node.getAttributeNames();
    for (let i = 0; i < names.length; i += 1) {
      const name = names[i];
      // For `class`, linkedom's getAttribute returns the class list joined, which is also
      // what its attribute holds after parsing; the minimal DOM stores it so.
      const value = node.getAttribute(name);
      if (value === null) continue;
      this.names[this.size] = name;
      this.values[this.size] = value;
      this.size += 1;
    }
    return this;
  }

  /** The first attribute of this name, as getAttribute returns it (null when absent). */
  get(name: string): string | null {
    for (let i = 0; i < this.size; i += 1) if (this.names[i] === name) return this.values[i];
    return null;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }
}

/** Upper-case element names by local name: nodeName is computed on every read. */
const NODE_NAMES = new Map<string, string>();
function elementName(node: DomNode): string {
  const local = node.localName;
  let name = NODE_NAMES.get(local);
  if (name === undefined) {
    name = node.nodeName.toUpperCase();
    if (NODE_NAMES.size < 1_000) NODE_NAMES.set(local, name);
  }
  return name;
}

/** The document and page facts of an HTML content. */
export interface HtmlReading {
  document: Document;
  page: PageFacts;
}

/** Matches the source of a `<style>` element (which may sit anywhere, even in an SVG). */
const STYLE_TAG = /<style/i;

/** Options of readHtml. */
export interface ReadHtmlOptions {
  /** Collect the page facts (headings, links, scripts, forms); default true. */
  facts?: boolean;
  /**
   * The DOM to read: "light" (default), the minimal tree built straight from
   * the parser's events (light_dom.ts), or "linkedom", linkedom's full DOM of
   * the same parse. Both read alike (tests/engine/html_reader_test.ts).
   */
  dom?: "light" | "linkedom";
}

/** Reads HTML into a document and its page facts. */
export function readHtml(html: string, options: ReadHtmlOptions = {}): HtmlReading {
  // Page facts (headings, links, scripts, forms) are for the website scan; an audit of HTML
  // content needs only the document.
  const wantFacts = options.facts ?? true;
  const source = DOCUMENT_LIKE.test(html)
    ? html
    : `<!doctype html><html><head></head><body>${html}</body></html>`;
  let root: DomNode | null;
  let styles: ArrayLike<DomNode> = [];
  if (options.dom === "linkedom") {
    // linkedom types its result with DOM lib types Deno does not load; only this shape is used.
    const { document } = parseHTML(source) as unknown as {
      document: {
        documentElement: DomNode | null;
        querySelectorAll(s: string): ArrayLike<DomNode>;
      };
    };
    root = document.documentElement;
    // No `<style` in the source, no style element: the extra walk of the tree is skipped.
    if (root !== null && STYLE_TAG.test(source)) styles = document.querySelectorAll("style");
  } else {
    const document = parseLight(source);
    root = document.documentElement;
    styles = document.styles;
  }
  const page: PageFacts = {
    title: "",
    headings: [],
    links: [],
    scripts: [],
    iframes: [],
    forms: [],
    meta: {},
  };
  // About one word per six characters of markup.
  const builder = new DocumentBuilder("html", (source.length / 5 | 0) + 16);
  if (root === null) return { document: builder.build(), page };

  const rules: StyleRules = new Map();
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
  const attributes = new Attributes();
  // The open elements, root first; frames[depth] is the innermost.
  const frames: Frame[] = [];
  let depth = -1;
  const open = (
    node: DomNode,
    name: string,
    seen: Seen,
    color: number | undefined,
    background: number | undefined,
    block: boolean,
    turn: boolean,
    summarySeen: Seen,
  ) => {
    depth += 1;
    const frame = frames[depth];
    if (frame === undefined) {
      frames[depth] = {
        node,
        name,
        seen,
        color,
        background,
        block,
        turn,
        summarySeen,
        child: node.firstChild,
      };
    } else {
      frame.node = node;
      frame.name = name;
      frame.seen = seen;
      frame.color = color;
      frame.background = background;
      frame.block = block;
      frame.turn = turn;
      frame.summarySeen = summarySeen;
      frame.child = node.firstChild;
    }
  };

  // The root is visited as a child of a virtual parent: visible, no colours.
  let pending: DomNode | null = root;
  let parentSeen = Seen.Visible;
  let parentColor: number | undefined = undefined;
  let parentBackground: number | undefined = undefined;
  while (true) {
    let node: DomNode;
    if (pending !== null) {
      node = pending;
      pending = null;
    } else {
      if (depth < 0) break;
      const top = frames[depth];
      const child = top.child;
      if (child === null) {
        // Every child visited: the element ends.
        if (top.block || top.turn) flushRun();
        if (top.turn) {
          builder.endTurn();
          inTurn -= 1;
        } else if (top.block) builder.newBlock();
        if (top.name === "FORM") form = null;
        top.node = root;
        depth -= 1;
        continue;
      }
      top.child = child.nextSibling;
      node = child;
      parentSeen = top.seen;
      parentColor = top.color;
      parentBackground = top.background;
    }

    const nodeType = node.nodeType;
    if (nodeType === 3) {
      const text = node.nodeValue;
      if (text === null || text === "") continue;
      const where: Where = parentSeen === Seen.Hidden
        ? "hidden"
        : parentSeen === Seen.Tiny
        ? "tiny"
        : "text";
      if (where !== runWhere) {
        flushRun();
        runWhere = where;
      }
      run += text;
      continue;
    }
    if (nodeType === 8) {
      // A comment: never shown, but it can say what the page hides.
      const text = node.nodeValue;
      if (text !== null && text.trim() !== "") attributePiece(text, "hidden", "comment");
      continue;
    }
    if (nodeType !== 1) continue;
    const name = elementName(node);
    if (wantFacts) collectFacts(node, name, page, form);
    const attrs = attributes.read(node);
    if (name === "FORM") {
      form = { action: attrs.get("action") ?? "", fields: [] };
      page.forms.push(form);
    }
    if (name === "TITLE") {
      const title = (node.textContent ?? "").trim();
      page.title ||= title;
      if (title !== "") attributePiece(title, "meta", "title");
      continue;
    }
    if (name === "META") {
      const key = (attrs.get("name") ?? attrs.get("property") ?? "").toLowerCase();
      const content = attrs.get("content");
      if (content && key !== "") {
        page.meta[key] = content;
        if (key.length <= 60 && !META_NOT_READ.test(key)) attributePiece(content, "meta", key);
      }
      continue;
    }
    if (SKIPPED.has(name) || name === "IFRAME") {
      // A widget's script or frame names its vendor in its source and is configured in
      // data-* attributes: both are read as hidden text ("script", "iframe", "data-*"), so
      // rules can recognise a chat widget; the script's code is not read.
      if (name === "IFRAME") {
        // A frame's title and label are what assistive technology announces for it.
        for (const attribute of TEXT_ATTRIBUTES) {
          const value = attrs.get(attribute);
          if (value && value.trim() !== "") attributePiece(value, "attribute", attribute);
        }
      }
      if (name === "SCRIPT" || name === "IFRAME") {
        const src = attrs.get("src");
        if (src) attributePiece(sourceWithoutQuery(src), "hidden", name.toLowerCase());
        else if (name === "SCRIPT") {
          // An inline loader ("s.src = 'https://js.driftt.com/...'") names its vendor by host.
          const hosts = scriptHosts(node.textContent ?? "");
          if (hosts !== "") attributePiece(hosts, "hidden", "script");
        }
      }
      dataAttributePieces(attrs, attributePiece);
      continue;
    }

    // Visibility, inherited: hidden wins over tiny. A closed <details> shows only its
    // <summary> until it is clicked open.
    let seen = name === "SUMMARY" && depth >= 0 && frames[depth].name === "DETAILS"
      ? frames[depth].summarySeen
      : parentSeen;
    let color = parentColor;
    let background = parentBackground;
    // <noscript> shows only in a browser without scripts: for a visitor, hidden.
    if (
      attrs.has("hidden") || name === "NOSCRIPT" ||
      (name === "INPUT" && attrs.get("type") === "hidden")
    ) {
      seen = Seen.Hidden;
    }
    const facts = elementStyle(attrs, name, rules);
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
    const role = inTurn === 0 && attrs.size > 0 ? speakerOf(attrs) : null;
    if (role !== null) {
      flushRun();
      builder.startTurn(role);
      inTurn += 1;
    } else if (block) {
      flushRun();
      builder.newBlock();
    }

    if (attrs.size > 0) {
      for (const attribute of TEXT_ATTRIBUTES) {
        const value = attrs.get(attribute);
        if (value && value.trim() !== "") {
          attributePiece(value, seen === Seen.Hidden ? "hidden" : "attribute", attribute);
        }
      }
      // data-* attributes describe an element to scripts: never shown, read as hidden text.
      dataAttributePieces(attrs, attributePiece);
      if (name === "INPUT" || name === "SELECT" || name === "TEXTAREA") {
        // What a form collects: its fields' names ("ssn", "date_of_birth") are read as
        // attribute text, so rules see the data a form asks for even without labels.
        const field = attrs.get("name") ?? attrs.get("id");
        if (field && /[A-Za-z]{2}/.test(field)) {
          attributePiece(
            field.replace(/[_\-.[\]]+/g, " ").slice(0, 100),
            "attribute",
            "field name",
          );
        }
      }
      if (name === "INPUT") {
        const type = (attrs.get("type") ?? "").toLowerCase();
        const value = attrs.get("value");
        if (value && (type === "submit" || type === "button")) {
          attributePiece(
            value,
            seen === Seen.Hidden ? "hidden" : seen === Seen.Tiny ? "tiny" : "text",
            "value",
          );
        }
      }
    }

    // Children next, in document order; the element ends after them.
    const collapsed = name === "DETAILS" && !attrs.has("open") && seen < Seen.Hidden;
    open(
      node,
      name,
      collapsed ? Seen.Hidden : seen,
      color,
      background,
      block,
      role !== null,
      seen,
    );
  }
  flushRun();
  return { document: builder.build(), page };
}

/** data-* names that configure a chat widget's opening message (`data-greeting`, `data-welcome-message`). */
const GREETING_ATTRIBUTE =
  /^data-(?:[a-z]+-)?(?:greeting|welcome|intro|first-message|opening-message)/i;

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

/** Reads an element's data-* attributes (at most 20, each up to 500 characters) as hidden text. */
function dataAttributePieces(
  attrs: Attributes,
  piece: (text: string, where: Where, label: string) => void,
): void {
  let taken = 0;
  for (let i = 0; i < attrs.size && taken < 20; i += 1) {
    const name = attrs.names[i];
    const value = attrs.values[i];
    if (
      name.startsWith("data-") && value.length <= 500 && !SECRET_LIKE_ATTRIBUTE.test(name)
    ) {
      taken += 1;
      // A chat widget's configured greeting is the first message its visitor sees.
      if (/[A-Za-z]{2}/.test(value)) {
        piece(value, GREETING_ATTRIBUTE.test(name) ? "text" : "hidden", name);
      }
    }
  }
}

function elementStyle(attrs: Attributes, name: string, rules: StyleRules): StyleFacts | null {
  const inline = attrs.get("style");
  let facts: StyleFacts | null = null;
  if (rules.size > 0) {
    const tag = name.toLowerCase();
    facts = merge(facts, rules.get(tag));
    const id = attrs.get("id");
    if (id) facts = merge(facts, rules.get(`#${id.toLowerCase()}`));
    const classes = attrs.get("class");
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

function speakerOf(attrs: Attributes): Role | null {
  const named = attrs.get("data-role") ?? attrs.get("data-sender") ??
    attrs.get("data-author") ?? attrs.get("data-speaker");
  if (named !== null) {
    const value = named.toLowerCase().trim();
    if (USER_TOKENS.has(value)) return "user";
    if (BOT_TOKENS.has(value)) return "bot";
  }
  const classes = attrs.get("class");
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
