/**
 * Dialogue in plain text: a chat export whose lines start with speaker labels
 * (`User:`, `Bot:`, `Customer:`, `Ava:`, `[10:02] Agent:`). Each labelled line
 * starts a turn; unlabelled lines continue it.
 *
 * Roles: labels that name a customer (`user`, `customer`, `patient`, `me`,
 * ...) are the user; labels that name a machine or the business (`bot`,
 * `assistant`, `agent`, `support`, anything containing "bot", "ai" or
 * "assistant") are the bot. When only one side is recognised, every other
 * label is the other side (a persona name such as `Ava:` opposite `User:` is
 * the bot). Text with fewer than two turns, fewer than two distinct labels,
 * or no recognised label is not dialogue, nor is text of three or more labels
 * each used once unless both sides are recognised (a brief's "Client: Acme",
 * "Budget: ...", "Audience: ..."). In a dialogue, a labelled line that
 * is nobody's turn ("Note:", "Narrator:", a third label beside both sides)
 * ends the open turn and reads as plain text.
 *
 * @module
 */
import type { LineStart } from "./builder.ts";
import type { Role } from "./document.ts";

const USER_LABELS = new Set([
  "user",
  "customer",
  "client",
  "visitor",
  "patient",
  "caller",
  "guest",
  "me",
  "human",
  "member",
  "shopper",
  "buyer",
  "applicant",
  "candidate",
  "student",
  "parent",
  "consumer",
  "q",
  "voter",
  "subscriber",
  "tenant",
  "borrower",
  "player",
  "viewer",
  "listener",
  "prospect",
  "end user",
  "teen",
  "minor",
  "kid",
  "child",
  "person",
  "lead",
  "resident",
  "homeowner",
  "investor",
  "employee",
  "job seeker",
  "jobseeker",
  "traveler",
  "traveller",
  "diner",
  "fan",
]);
const BOT_LABELS = new Set([
  "bot",
  "chatbot",
  "assistant",
  "ai",
  "agent",
  "virtual assistant",
  "support",
  "system",
  "a",
  "concierge",
  "helper",
  "companion",
  "operator",
  "model",
  "gpt",
  "chatgpt",
  "claude",
  "copilot",
  "automated reply",
  "auto reply",
]);
const NOT_SPEAKERS = new Set([
  "note",
  "notes",
  "subject",
  "re",
  "date",
  "from",
  "to",
  "cc",
  "bcc",
  "ps",
  "warning",
  "disclaimer",
  "important",
  "tip",
  "step",
  "example",
  "title",
  "description",
  "url",
  "source",
  "price",
  "total",
  "address",
  "phone",
  "email",
  "hours",
  "location",
  "summary",
  "update",
  "edit",
  "fyi",
  "nb",
  "disclosure",
  "notice",
  "caption",
  "headline",
  "scene",
  "voiceover",
  "vo",
  "narrator",
  "audio",
  "video",
  "visual",
  "format",
  "length",
  "airs",
  "air date",
  "runs",
  "placement",
  "channel",
  "sponsor",
  "paid for by",
  "status",
  "result",
  "reason",
  "decision",
  "outcome",
  "why",
  "what",
  "when",
  "where",
  "how",
  "who",
  "q&a",
  "faq",
  "answer",
  "question",
  "response",
  "reply",
  "label",
  "footer",
  "header",
  "banner",
  "tagline",
  "cta",
  "button",
  "link",
  "image",
  "alt",
  "file",
  "metadata",
  "posted",
  "published",
  "author",
  "by",
  "category",
  "tags",
  "features",
  "pricing",
  "plan",
  "offer",
  "terms",
  "privacy",
  "contact",
  "name",
  "role",
  "job title",
  "position",
  "salary",
  "requirements",
  "responsibilities",
]);

// An optional time stamp, then a label of one to four words, then a colon.
const LABEL_LINE =
  /^[ \t]*(?:[-*][ \t]+)?(?:\*\*)?(?:\[[^\]\n]{1,40}\][ \t]*|\(?\d{1,2}:\d{2}(?::\d{2})?[ \t]*(?:[AaPp][Mm])?\)?[ \t]*)?([A-Za-z][A-Za-z0-9.'()_ -]{0,30}?)(?:\*\*)?[ \t]*:(?:\*\*)?[ \t]+(?=\S)/;

function classify(label: string): Role | null {
  if (USER_LABELS.has(label)) return "user";
  if (BOT_LABELS.has(label)) return "bot";
  if (/disclos|label|notice|voice|script|caption|text|list|note/.test(label)) return null;
  if (/\b(?:bot|ai|assistant|gpt|agent|support|helper)\b|bot\b/.test(label)) return "bot";
  if (/\b(?:customer|user|patient|visitor|caller|client)\b/.test(label)) return "user";
  return null;
}

/** The dialogue lines of a plain text, or null when the text is not a dialogue. */
export function findDialogueLines(text: string): LineStart[] | null {
  if (text.indexOf(":") < 0) return null;
  const found: { at: number; textAt: number; label: string }[] = [];
  // Labelled lines that are not a speaker's ("Note:", "Narrator:", "Disclaimer:"): in a
  // dialogue they end the open turn, so that nobody's words are read as the bot's.
  const narration: number[] = [];
  let at = 0;
  while (at <= text.length) {
    let end = text.indexOf("\n", at);
    if (end < 0) end = text.length;
    if (end - at > 2) {
      const match = LABEL_LINE.exec(text.slice(at, Math.min(end, at + 80)));
      if (match !== null) {
        const label = match[1].trim().toLowerCase().replace(/\s+/g, " ").replace(/[.()]+$/, "");
        const words = label.split(" ").length;
        if (label !== "" && words <= 4) {
          if (NOT_SPEAKERS.has(label)) narration.push(at);
          else found.push({ at, textAt: at + match[0].length, label });
        }
      }
    }
    at = end + 1;
  }
  if (found.length < 2) return null;
  const labels = new Set(found.map((line) => line.label));
  if (labels.size < 2) return null;
  const known = new Map<string, Role | null>();
  for (const label of labels) known.set(label, classify(label));
  const roles = new Set([...known.values()].filter((role) => role !== null));
  // A dialogue has someone on the user's side: a label such as "User:" or
  // "Customer:" (a bot label alone is too weak: "AI disclosure:" is not a speaker).
  if (!roles.has("user")) return null;
  // A form or a brief labels each of its fields once ("Client: Acme", "Budget: $5k",
  // "Audience: ..."); a chat's speakers come back. Three or more labels, each used once,
  // with no recognised label on the bot's side, are fields.
  if (roles.size < 2 && labels.size >= 3 && labels.size === found.length) return null;
  const fallback: Role | null = roles.size === 2 ? null : roles.has("user") ? "bot" : "user";
  const lines: LineStart[] = [];
  for (const line of found) {
    const role = known.get(line.label) ?? fallback;
    // A third, unrecognised label beside both sides speaks for neither: narration.
    lines.push(
      role === null
        ? { at: line.at, textAt: line.at, role: null }
        : { at: line.at, textAt: line.textAt, role },
    );
  }
  if (lines.filter((line) => line.role !== null).length < 2) return null;
  for (const at of narration) lines.push({ at, textAt: at, role: null });
  return lines.sort((a, b) => a.at - b.at);
}
