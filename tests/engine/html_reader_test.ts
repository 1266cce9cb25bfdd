/**
 * HTML content is read from a minimal DOM built straight from the parser's
 * events (light_dom.ts) instead of linkedom's full DOM. These properties hold
 * the two to the same reading: every document column, piece and turn, and
 * every page fact, on generated pages full of what HTML reading must get
 * right (implied and stray end tags, upper-case names, duplicate classes,
 * hidden and tiny text, style sheets inside and outside the root and in
 * templates, SVG, CDATA, comments, chat bubbles, forms and widgets).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { type Document, readHtml } from "../../shared/engine/mod.ts";

function columns(d: Document) {
  return {
    kind: d.kind,
    words: d.words,
    columns: [d.piece, d.start, d.end, d.sentence, d.clause, d.block, d.flags, d.question]
      .map((column) => Array.from(column)),
    blockTurn: Array.from(d.blockTurn),
    pieces: d.pieces,
    turns: d.turns,
  };
}

const FRAGMENTS = [
  "Hello there. ",
  "I'm a real person! ",
  "This is an AI assistant.",
  "Call 911 now?",
  "  ",
  "&amp; &lt;b&gt; &#x41;&#66;&nbsp;&copy; ",
  "NurseBot says hi",
  "<!-- I am a bot -->",
  "</p>",
  "</br>",
  "<br/>",
  "<P CLASS='a  b a' Class='x'>Upper</P>",
  "<svg><style>.sr{display:none}</style><text>svg text</text></svg>",
  "<![CDATA[ cdata text ]]>",
  "<template><style>.copy{display:none}</style><p>tpl</p></template>",
  "<title>T &amp; <b>x</b></title>",
  "<script>var s='https://js.driftt.com/x'; if (a<b) {}</script>",
  "<script src='https://widget.intercom.io/w/x?app_id=1'></script>",
  "<textarea name='date_of_birth'>I am <b>a bot</b></textarea>",
  "<li>one<li>two",
  "<table><tr><td>cell<td>cell2</table>",
  "<div data-role='bot'><span>hi, I am human</span><div data-role='user'>x</div></div>",
  "<div class='msg msg-user'>are you a bot?</div><div class='msg msg-bot'>no</div>",
  "<img alt='AI' src=x>",
  "<input type=submit value='Chat with AI'><input type=hidden name=token value=abc>",
  "<math><mi>x</mi></math>",
  "<a href='/p'>Privacy <b>policy</b></a>",
  "<h2>Head<!-- c --></h2>",
  "<style>.copy{color:#fff;background:#fefefe} #x{visibility:hidden}</style>",
  "<p style='display:none'><i>hidden</i></p>",
  "<span style='font-size:6px'>tiny print</span>",
  "<noscript><p>n</p></noscript>",
  "<iframe src='https://x.example/chat?token=1' data-bot-name='Ava'></iframe>",
  "<meta name='ai-disclosure' content='AI generated'><meta property='og:title' content='Shop'>",
  "<form action='/f'><select name='ssn'><option>1</option></select><input id=email></form>",
];
const TAGS = ["p", "div", "span", "b", "li", "ul", "button", "section", "label", "h3", "a"];
const ATTRIBUTES = [
  "class",
  "id",
  "style",
  "hidden",
  "aria-label",
  "ARIA-LABEL",
  "title",
  "placeholder",
  "data-role",
  "data-sender",
  "data-app-key",
  "data-info",
  "name",
  "type",
  "value",
];
const VALUES = [
  "",
  "bot",
  "user",
  "msg bot",
  "chat assistant",
  "a a b",
  "a b a",
  "sr",
  "copy",
  "x",
  "display:none",
  "font-size:7px",
  "color:#fff;background:#fff",
  "I am an AI assistant",
  "submit",
  "date_of_birth",
  "AI bot",
];

const node: fc.Arbitrary<string> = fc.letrec((tie) => ({
  element: fc.tuple(
    fc.constantFrom(...TAGS),
    fc.array(fc.tuple(fc.constantFrom(...ATTRIBUTES), fc.constantFrom(...VALUES)), {
      maxLength: 4,
    }),
    fc.array(tie("node"), { maxLength: 4 }),
  ).map(([tag, attributes, children]) =>
    `<${tag}${attributes.map(([k, v]) => ` ${k}="${v}"`).join("")}>${children.join("")}</${tag}>`
  ),
  node: fc.oneof({ depthSize: "small" }, fc.constantFrom(...FRAGMENTS), tie("element")),
})).node as fc.Arbitrary<string>;

const page = fc.tuple(
  fc.integer({ min: 0, max: 4 }),
  fc.array(node, { maxLength: 8 }),
  fc.constantFrom(...FRAGMENTS),
).map(([shape, parts, extra]) => {
  const body = parts.join("");
  switch (shape) {
    case 0:
      return `<!doctype html><html><head><style>.sr{display:none} .copy{font-size:6px} ` +
        `.a{color:#fff;background:#fff} .b{color:#000}</style>` +
        `</head><body>${body}</body></html>`;
    case 1: // text and elements outside the root, a style sheet after it
      return `before ${extra}<html><body>${body}</body></html>${extra} after<p>tail</p>` +
        `<style>.copy{display:none}</style>`;
    case 2: // two top-level elements
      return `<head><title>x</title></head><body>${body}</body>`;
    case 3:
      return `${extra}<body class="copy">${body}`;
    default:
      return body;
  }
});

Deno.test("HTML read from the minimal DOM reads exactly as from linkedom's DOM", () => {
  fc.assert(
    fc.property(page, fc.boolean(), (html, facts) => {
      const light = readHtml(html, { facts });
      const full = readHtml(html, { facts, dom: "linkedom" });
      assert.deepEqual(columns(light.document), columns(full.document));
      assert.deepEqual(light.page, full.page);
    }),
    { numRuns: 1500 },
  );
});

Deno.test("the minimal DOM reads what linkedom's DOM hides or shows in a page", () => {
  const html = `<html><head><style>.sr{position:absolute;left:-9999px}</style></head><body>
    <p>Shop with us.</p><span class="sr">AI assistant</span>
    <template><style>p{display:none}</style></template>
    <div aria-label="Chat with our bot">Chat</div></body></html>
    <style>.late{font-size:5px}</style><p class="late">outside the root</p>`;
  const light = readHtml(html, { facts: false }).document;
  const full = readHtml(html, { facts: false, dom: "linkedom" }).document;
  assert.deepEqual(columns(light), columns(full));
  const whereOf = (doc: Document, word: string) =>
    doc.pieces[doc.piece[doc.words.indexOf(word)]].where;
  assert.equal(whereOf(light, "shop"), "text", "a style sheet in a template hides nothing");
  assert.equal(whereOf(light, "assistant"), "hidden", "off-screen text is hidden");
  assert.equal(whereOf(light, "chat"), "attribute");
  assert.ok(!light.words.includes("outside"), "what follows the root element is not read");
});
