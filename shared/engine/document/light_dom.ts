/**
 * A minimal DOM built straight from htmlparser2's events, for reading HTML
 * content fast.
 *
 * linkedom builds its DOM from the same parser with the same options
 * (`lowerCaseAttributeNames: false`, `decodeEntities: true`, HTML mode), one
 * node per event: an element per open tag (its attributes in order, `class`
 * stored as its distinct tokens joined by spaces), a text, CDATA or comment
 * node per event, and a close tag returning to the parent. This module makes
 * the same tree of plain objects, without what a full DOM needs besides (an
 * event target per node, attribute nodes, class token lists): building it
 * costs a fraction of linkedom's parse. It offers exactly what html.ts reads
 * (`nodeType`, `nodeName`, `localName`, `nodeValue`, `firstChild`,
 * `nextSibling`, attributes, `textContent`) and the document's `<style>`
 * elements in tree order, as linkedom's `querySelectorAll("style")` returns
 * them. tests/engine/html_reader_test.ts checks that html.ts reads both trees
 * alike.
 *
 * @module
 */
import { Parser } from "htmlparser2";

const ELEMENT = 1;
const TEXT = 3;
const CDATA = 4;
const COMMENT = 8;

/** The attributes of a node that has none (never written to). */
const NONE: string[] = Object.freeze([]) as unknown as string[];

/** A node of the minimal DOM. */
export class LightNode {
  readonly nodeType: number;
  /** Lower-case tag name of an element; "" for other nodes. */
  readonly localName: string;
  /** Data of a text, CDATA or comment node; null for an element. */
  readonly nodeValue: string | null;
  parent: LightNode | null = null;
  firstChild: LightNode | null = null;
  lastChild: LightNode | null = null;
  nextSibling: LightNode | null = null;
  // Attribute names and values, in order; shared empty arrays until the first attribute.
  #names: string[] = NONE;
  #values: string[] = NONE;

  constructor(nodeType: number, localName: string, nodeValue: string | null) {
    this.nodeType = nodeType;
    this.localName = localName;
    this.nodeValue = nodeValue;
  }

  /** Upper-case tag name (as an HTML document's nodeName). */
  get nodeName(): string {
    return this.nodeType === ELEMENT ? this.localName.toUpperCase() : "#" + this.nodeType;
  }

  setAttribute(name: string, value: string): void {
    if (this.#names === NONE) {
      this.#names = [];
      this.#values = [];
    }
    this.#names.push(name);
    this.#values.push(value);
  }

  hasAttributes(): boolean {
    return this.#names.length > 0;
  }

  getAttributeNames(): readonly string[] {
    return this.#names;
  }

  getAttribute(name: string): string | null {
    const i = this.#names.indexOf(name);
    return i < 0 ? null : this.#values[i];
  }

  getAttributeNode(name: string): { value: string } | null {
    const value = this.getAttribute(name);
    return value === null ? null : { value };
  }

  hasAttribute(name: string): boolean {
    return this.#names.includes(name);
  }

  /** Text of the descendant text and CDATA nodes, joined (a text node: its data). */
  get textContent(): string | null {
    if (this.nodeType !== ELEMENT) return this.nodeValue;
    const parts: string[] = [];
    const stack: LightNode[] = [];
    let node = this.firstChild;
    while (node !== null) {
      if (node.nodeType === TEXT || node.nodeType === CDATA) parts.push(node.nodeValue as string);
      if (node.firstChild !== null) {
        if (node.nextSibling !== null) stack.push(node.nextSibling);
        node = node.firstChild;
      } else {
        node = node.nextSibling ?? stack.pop() ?? null;
      }
    }
    return parts.join("");
  }

  append(child: LightNode): void {
    child.parent = this;
    if (this.lastChild === null) this.firstChild = child;
    else this.lastChild.nextSibling = child;
    this.lastChild = child;
  }
}

/** A parsed page: its first element (the document element) and its `<style>` elements. */
export interface LightDocument {
  documentElement: LightNode | null;
  styles: LightNode[];
}

/** `class` as linkedom keeps it: its distinct tokens, in order, joined by single spaces. */
function classValue(value: string): string {
  const tokens = new Set<string>();
  for (const token of value.split(/\s+/)) if (token) tokens.add(token);
  return [...tokens].join(" ");
}

/** Parses HTML as linkedom's parseHTML does, into the minimal DOM. */
export function parseLight(html: string): LightDocument {
  const document = new LightNode(9, "", null);
  const styles: LightNode[] = [];
  let node = document;
  let cdata = false;
  // Open <template> elements: linkedom's querySelectorAll does not look inside one.
  let templates = 0;
  const parser = new Parser({
    onopentag(name, attributes) {
      const element = new LightNode(ELEMENT, name, null);
      node.append(element);
      node = element;
      for (const key of Object.keys(attributes)) {
        const value = attributes[key];
        element.setAttribute(key, key === "class" ? classValue(value) : value);
      }
      if (name === "style" && templates === 0) styles.push(element);
      if (name === "template") templates += 1;
    },
    oncomment(data) {
      node.append(new LightNode(COMMENT, "", data));
    },
    ontext(text) {
      node.append(new LightNode(cdata ? CDATA : TEXT, "", text));
    },
    oncdatastart() {
      cdata = true;
    },
    oncdataend() {
      cdata = false;
    },
    onclosetag() {
      if (node.localName === "template") templates -= 1;
      node = node.parent ?? document;
    },
  }, {
    lowerCaseAttributeNames: false,
    decodeEntities: true,
    xmlMode: false,
  });
  parser.write(html);
  parser.end();
  let root = document.firstChild;
  while (root !== null && root.nodeType !== ELEMENT) root = root.nextSibling;
  return { documentElement: root, styles };
}
