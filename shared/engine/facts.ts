/**
 * Facts a statute's scope depends on, read from what the content states.
 *
 * `statedDaysBefore` reads how many days before an event (an election) the
 * content is published, from either
 * - a relative statement in the event's sentence: "three weeks before the
 *   election", "the primary is in 10 days", "the day before the vote"; or
 * - two dates: one next to the event ("election day is November 3") and one
 *   next to publishing ("airs October 30"), in any common form (`Oct. 30`,
 *   `30 October`, `10/30`, `2026-10-30`, with or without a year).
 *
 * When the content states nothing it can read, the answer is null: a rule
 * then treats the timing as unknown, never as outside the window.
 *
 * @module
 */
import type { Document } from "./document/document.ts";
import type { EvidenceSpan } from "./expression.ts";

const NUMBER_WORDS = new Map(
  Object.entries({
    a: 1,
    an: 1,
    one: 1,
    two: 2,
    three: 3,
    four: 4,
    five: 5,
    six: 6,
    seven: 7,
    eight: 8,
    nine: 9,
    ten: 10,
    eleven: 11,
    twelve: 12,
    thirteen: 13,
    fourteen: 14,
    fifteen: 15,
    twenty: 20,
    thirty: 30,
    forty: 40,
    fifty: 50,
    sixty: 60,
    ninety: 90,
    hundred: 100,
    couple: 2,
    few: 3,
    several: 4,
  }),
);
const UNIT_DAYS = new Map(
  Object.entries({
    day: 1,
    days: 1,
    week: 7,
    weeks: 7,
    month: 30,
    months: 30,
    year: 365,
    years: 365,
  }),
);
const BEFORE_WORDS = new Set([
  "before",
  "ahead",
  "prior",
  "until",
  "till",
  "out",
  "from",
  "preceding",
  "to",
]);
const MONTHS = new Map(
  Object.entries({
    jan: 1,
    january: 1,
    feb: 2,
    february: 2,
    mar: 3,
    march: 3,
    apr: 4,
    april: 4,
    may: 5,
    jun: 6,
    june: 6,
    jul: 7,
    july: 7,
    aug: 8,
    august: 8,
    sep: 9,
    sept: 9,
    september: 9,
    oct: 10,
    october: 10,
    nov: 11,
    november: 11,
    dec: 12,
    december: 12,
  }),
);
const PUBLISH_WORDS = new Set([
  "air",
  "airs",
  "aired",
  "airing",
  "airdate",
  "run",
  "runs",
  "running",
  "ran",
  "publish",
  "publishes",
  "published",
  "publishing",
  "publication",
  "post",
  "posts",
  "posted",
  "posting",
  "release",
  "releases",
  "released",
  "distribute",
  "distributed",
  "distribution",
  "launch",
  "launches",
  "launched",
  "drop",
  "drops",
  "dropped",
  "broadcast",
  "broadcasts",
  "mail",
  "mailed",
  "mailing",
  "emailed",
  "texted",
  "messaged",
  "notified",
  "send",
  "sent",
  "live",
  "premiere",
  "premieres",
  "scheduled",
  "debut",
  "debuts",
  "circulate",
  "circulated",
  "circulating",
  "upload",
  "uploaded",
  "share",
  "shared",
  "streams",
  "stream",
  "placement",
  "flight",
  "flights",
]);
const NEARBY = 8;
const DAY_MS = 86_400_000;

function numberAt(doc: Document, k: number): number | null {
  if (k < 0) return null;
  const word = doc.words[k];
  if (/^[0-9]{1,3}$/.test(word)) return Number(word);
  return NUMBER_WORDS.get(word) ?? null;
}

/** Days before the event that the content says it is published, or null when it does not say. */
export function statedDaysBefore(doc: Document, events: readonly EvidenceSpan[]): number | null {
  for (const event of events) {
    const relative = relativeDays(doc, event);
    if (relative !== null) return relative;
  }
  return datedDays(doc, events);
}

function relativeDays(doc: Document, event: EvidenceSpan): number | null {
  const { words, sentence } = doc;
  const s = sentence[event.first];
  // "<n> <unit> ... before|ahead of|prior to ... <event>"
  for (let k = event.first - 1; k >= 0 && k >= event.first - NEARBY && sentence[k] === s; k -= 1) {
    const unit = UNIT_DAYS.get(words[k]);
    if (unit === undefined) continue;
    let relation = false;
    for (let r = k + 1; r < event.first; r += 1) if (BEFORE_WORDS.has(words[r])) relation = true;
    if (!relation) continue;
    const n = numberAt(doc, k - 1);
    if (n !== null) return n * unit;
    if (words[k - 1] === "the" || words[k - 1] === "that") return unit;
  }
  // "<event> is (just) in <n> <unit>", "<event> ... <n> <unit> away|out|left"
  for (let k = event.end; k < doc.length && k < event.end + NEARBY && sentence[k] === s; k += 1) {
    const unit = UNIT_DAYS.get(words[k]);
    if (unit === undefined) continue;
    const n = numberAt(doc, k - 1);
    if (n === null) continue;
    const before = words[k - 2];
    const after = words[k + 1];
    if (
      before === "in" || after === "away" || after === "out" || after === "left" ||
      after === "later"
    ) {
      return n * unit;
    }
  }
  // "on election day"
  if (event.first > 0 && words[event.first - 1] === "on" && words[event.end] === "day") return 0;
  return null;
}

interface DateMention {
  token: number;
  month: number;
  day: number;
  year: number | null;
}

function readDates(doc: Document): DateMention[] {
  const { words } = doc;
  const dates: DateMention[] = [];
  for (let k = 0; k < doc.length; k += 1) {
    const month = MONTHS.get(words[k]);
    if (month !== undefined) {
      // "October 30(th)(, 2026)" or "30 October (2026)"
      const next = dayNumber(words[k + 1]);
      if (next !== null && k + 1 < doc.length) {
        dates.push({ token: k, month, day: next, year: yearNumber(words[k + 2]) });
        continue;
      }
      const previous = dayNumber(words[k - 1]);
      if (previous !== null && k > 0) {
        dates.push({ token: k - 1, month, day: previous, year: yearNumber(words[k + 1]) });
      }
      continue;
    }
    // "2026-10-30"
    if (/^20[0-9]{2}$/.test(words[k]) && joinedBy(doc, k, "-") && joinedBy(doc, k + 1, "-")) {
      const m = Number(words[k + 1]);
      const d = Number(words[k + 2]);
      if (m >= 1 && m <= 12 && d >= 1 && d <= 31) {
        dates.push({ token: k, month: m, day: d, year: Number(words[k]) });
        k += 2;
      }
      continue;
    }
    // "10/30" or "10/30/2026"
    if (/^[0-9]{1,2}$/.test(words[k]) && joinedBy(doc, k, "/")) {
      const m = Number(words[k]);
      const d = Number(words[k + 1]);
      if (m >= 1 && m <= 12 && d >= 1 && d <= 31) {
        const year = joinedBy(doc, k + 1, "/") ? yearNumber(words[k + 2]) : null;
        dates.push({ token: k, month: m, day: d, year });
        k += year === null ? 1 : 2;
      }
    }
  }
  return dates;
}

function dayNumber(word: string | undefined): number | null {
  if (word === undefined) return null;
  const match = /^([0-9]{1,2})(?:st|nd|rd|th)?$/.exec(word);
  if (match === null) return null;
  const day = Number(match[1]);
  return day >= 1 && day <= 31 ? day : null;
}

function yearNumber(word: string | undefined): number | null {
  return word !== undefined && /^20[0-9]{2}$/.test(word) ? Number(word) : null;
}

/** Whether token k and k+1 are written with exactly `separator` between them. */
function joinedBy(doc: Document, k: number, separator: string): boolean {
  if (k + 1 >= doc.length || doc.piece[k] !== doc.piece[k + 1]) return false;
  const text = doc.pieces[doc.piece[k]].text;
  return text.slice(doc.end[k], doc.start[k + 1]) === separator;
}

/**
 * The days between a date stated for the event and a date stated for
 * publishing. A date is the event's when an event mention is its nearest
 * cue (closer than any publishing word), so that "(posting Oct 10; election
 * Nov 3)" reads Oct 10 as the posting date; the publishing date is another
 * date next to a publishing word, the nearest.
 */
function datedDays(doc: Document, events: readonly EvidenceSpan[]): number | null {
  const dates = readDates(doc);
  if (dates.length < 2) return null;
  let eventDate: DateMention | null = null;
  let eventDistance = Infinity;
  for (const date of dates) {
    const toEvent = eventDistanceOf(doc, date.token, events);
    if (toEvent < eventDistance && toEvent <= publishDistanceOf(doc, date.token)) {
      eventDate = date;
      eventDistance = toEvent;
    }
  }
  if (eventDate === null) return null;
  let publishDate: DateMention | null = null;
  let publishDistance = Infinity;
  for (const date of dates) {
    if (date === eventDate) continue;
    const toPublish = publishDistanceOf(doc, date.token);
    if (toPublish < publishDistance) {
      publishDate = date;
      publishDistance = toPublish;
    }
  }
  if (publishDate === null) return null;
  const year = eventDate.year ?? publishDate.year ?? 2026;
  const event = Date.UTC(year, eventDate.month - 1, eventDate.day);
  let publish = Date.UTC(publishDate.year ?? year, publishDate.month - 1, publishDate.day);
  if (publishDate.year === null && publish > event) {
    publish = Date.UTC(year - 1, publishDate.month - 1, publishDate.day);
  }
  return Math.round((event - publish) / DAY_MS);
}

/** Words from a date to the nearest event mention of its sentence (Infinity: none within NEARBY). */
function eventDistanceOf(doc: Document, token: number, events: readonly EvidenceSpan[]): number {
  let best = Infinity;
  for (const e of events) {
    if (doc.sentence[e.first] !== doc.sentence[token]) continue;
    const distance = token >= e.end ? token - (e.end - 1) : Math.max(0, e.first - token);
    if (distance <= NEARBY && distance < best) best = distance;
  }
  return best;
}

/** Words from a date to the nearest publishing word of its sentence (Infinity: none within NEARBY). */
function publishDistanceOf(doc: Document, token: number): number {
  const sentence = doc.sentence[token];
  let best = Infinity;
  for (let k = Math.max(0, token - NEARBY); k < Math.min(doc.length, token + NEARBY); k += 1) {
    if (
      doc.sentence[k] === sentence && (PUBLISH_WORDS.has(doc.words[k]) || isDateHeader(doc, k))
    ) {
      best = Math.min(best, Math.abs(k - token));
    }
  }
  return best;
}

/**
 * Whether token k is an email's or a letter's "Date:" header (the word
 * "date" opening its clause, a colon right after it): the date it gives is
 * when the message was sent.
 */
function isDateHeader(doc: Document, k: number): boolean {
  if (doc.words[k] !== "date" || (k > 0 && doc.clause[k - 1] === doc.clause[k])) return false;
  const text = doc.pieces[doc.piece[k]].text;
  return text.charCodeAt(doc.end[k]) === 58;
}
