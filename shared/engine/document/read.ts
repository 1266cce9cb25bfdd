/**
 * Content into a document: HTML through html.ts, a chat export with speaker
 * labels as a dialogue, anything else as plain text; and a transcript's
 * messages as a dialogue, one turn per message.
 *
 * @module
 */
import { DocumentBuilder } from "./builder.ts";
import { findDialogueLines } from "./dialogue.ts";
import type { Document, Role } from "./document.ts";
import { looksLikeHtml, readHtmlContent } from "./html_reader.ts";

/** A transcript message (contract 2.5, after validation). */
export interface DialogueMessage {
  sender: Role;
  text: string;
  /** ISO 8601 date-time. */
  timestamp?: string;
}

/**
 * Lines of workflow metadata, which the recipient of a message never sees:
 * `Status: ...`, `Internal note: ...`, `Routing: ...`.
 */
const META_LINE =
  /^[ \t]*(?:status|internal(?: note| notes)?|workflow|routing|queue|assigned to|reviewer|review status|sent by|ticket(?: id)?|priority|agent notes?|system note)[ \t]*:/i;

/**
 * A line that is only a bracketed stage direction of a described asset,
 * "[VIDEO: the clip re-voiced with AI]" or "[Hero: looping video of our AI model]":
 * it says what is shown, it is not shown. Read as a production note, unless
 * it gives the words the audience sees (a label, caption, on-screen text).
 */
const STAGE_LINE =
  /^[ \t]*\[[ \t]*(?:video|hero|visual|visuals|b-roll|broll|shot|scene|sfx|music|audio|footage|clip|animation|gif|image|photo)\b[^\]\n]*\][ \t]*$/i;
const SHOWN_WORDS = /label|caption|on[- ]?screen|disclaimer|disclosure|\bsuper\b|\breads\b|text:/i;

function isStageLine(line: string): boolean {
  return STAGE_LINE.test(line) && !SHOWN_WORDS.test(line);
}

/** Plain text, as a dialogue when its lines carry speaker labels. */
export function readText(text: string): Document {
  const lineStarts = findDialogueLines(text) ?? undefined;
  const builder = new DocumentBuilder(
    lineStarts === undefined ? "text" : "dialogue",
    (text.length >> 2) + 16,
  );
  let from = 0;
  let textFrom = 0;
  while (from < text.length) {
    let end = text.indexOf("\n", from);
    if (end < 0) end = text.length;
    const first = text.charCodeAt(from);
    const stage = first === 0x5b || first === 0x20 || first === 0x09
      ? end - from <= 1000 && isStageLine(text.slice(from, end))
      : false;
    if (stage || META_LINE.test(text.slice(from, Math.min(end, from + 40)))) {
      if (from > textFrom) {
        builder.addPiece(text, {
          where: "text",
          lines: "text",
          lineStarts,
          from: textFrom,
          to: from,
        });
      }
      builder.newBlock();
      builder.addPiece(text, {
        where: "meta",
        label: stage ? "production note" : "metadata line",
        lines: "text",
        from,
        to: end,
      });
      builder.newBlock();
      textFrom = end;
    }
    from = end + 1;
  }
  if (textFrom < text.length || textFrom === 0) {
    builder.addPiece(text, { where: "text", lines: "text", lineStarts, from: textFrom });
  }
  return builder.build();
}

/** A transcript: one turn per message, with its time when it has one. */
export function readMessages(messages: readonly DialogueMessage[]): Document {
  const builder = new DocumentBuilder("dialogue");
  for (const message of messages) {
    const time = message.timestamp === undefined ? NaN : Date.parse(message.timestamp);
    builder.startTurn(message.sender, time);
    builder.addPiece(message.text, { where: "text", lines: "text" });
    builder.endTurn();
  }
  return builder.build();
}

/**
 * Any content the audit accepts: text, HTML, a script or an asset description.
 * HTML needs the HTML reader loaded (html_reader.ts's loadHtmlReader).
 */
export function readContent(content: string): Document {
  return looksLikeHtml(content) ? readHtmlContent(content) : readText(content);
}
