/** Deterministic content for bench/http.ts: audit text, a transcript, a 1 MB shop page. */

/** Neutral marketing and chat lines the benchmark texts repeat. */
export const COPY = [
  "Welcome back to BrightCart! Our spring collection is here, with free shipping on orders over $50. ",
  "Customer: Hi, can you help me track my order? ",
  "Assistant: Of course. Your package left our warehouse this morning and should arrive on Thursday. ",
  "Our team hand-picks every product and tests it in our studio before it goes on sale. ",
  "Sign up for the newsletter to hear about new arrivals, seasonal recipes and styling tips. ",
  "Returns are free within 30 days; just print the label from your account page. ",
];
/** Lines that trigger rules, mixed into the benchmark texts. */
export const TRIGGERS = [
  "Hi, I'm a real person on the sales team, so buy now before the discount ends. ",
  "Your personal price: $42.99, offer based on your shopping history. ",
  "Our AI assistant never makes mistakes. ",
];

/** Marketing and chat copy of exactly `size` characters with a few trigger phrases (as bench/engine.ts). */
export function buildText(size: number): string {
  let text = "";
  let i = 0;
  while (text.length < size) {
    text += i % 17 === 5 ? TRIGGERS[(i / 17 | 0) % TRIGGERS.length] : COPY[i % COPY.length];
    i += 1;
  }
  return text.slice(0, size);
}

const USER_LINES = [
  "Hi, I need help with my order from last week.",
  "Are you a real person?",
  "Can I change the delivery address?",
  "I feel really stressed about money lately.",
  "What is your return policy for opened items?",
  "Can I talk to a human please?",
];
const BOT_LINES = [
  "Hi! I'm the BrightCart virtual assistant, an AI. How can I help?",
  "Sure, I can look that up. Could you give me the order number?",
  "Your order shipped on Monday and should arrive by Friday.",
  "You can change the address until the parcel leaves the warehouse.",
  "Opened items can be returned within 30 days for store credit.",
  "I can connect you with a member of our support team right away.",
];

/** A conversation of `count` messages, alternating user and bot, a minute apart. */
export function buildTranscript(count: number) {
  const start = Date.parse("2026-11-20T10:00:00Z");
  return Array.from({ length: count }, (_, i) => ({
    sender: i % 2 === 0 ? "user" : "bot",
    text: (i % 2 === 0 ? USER_LINES : BOT_LINES)[(i >> 1) % 6],
    timestamp: new Date(start + i * 60_000).toISOString(),
  }));
}

/** A realistic shop page of `bytes` characters: navigation, product sections, a form, a chat widget. */
export function buildPage(bytes: number): string {
  const head =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Maple &amp; Oak Furniture</title>
<meta name="description" content="Handmade furniture from Vermont."></head><body>
<header><nav><a href="/">Home</a> <a href="/shop">Shop</a> <a href="/about">About</a></nav></header><main>`;
  const tail =
    `<form action="/newsletter"><label>Email <input name="email" type="email"></label><button>Join</button></form>
</main><footer><p>Questions? Our assistant Robin answers around the clock.</p></footer>
<script async src="https://widget.intercom.io/widget/k2x9vq"></script></body></html>`;
  const sections: string[] = [];
  let size = head.length + tail.length;
  for (let i = 0; size < bytes; i += 1) {
    const section = `<section class="product"><h2>Oak chair no. ${i}</h2>
<p>Solid white oak, hand-finished with natural oil. Seat height 18 inches; ships flat in 3 to 5 days. Every chair is inspected by the maker who built it, and the frame carries a lifetime warranty.</p>
<p class="price">$${
      240 + (i % 50)
    }</p><a href="/shop/chair-${i}">Details</a> <img src="/img/chair-${i}.jpg" alt="Oak chair ${i}"></section>\n`;
    sections.push(section);
    size += section.length;
  }
  return (head + sections.join("") + tail).slice(0, bytes - tail.length) + tail;
}
