/**
 * The labeled corpus: the schema of a case file (`corpus/cases/*.json`) and
 * the loader that checks every file against it and against the statute
 * registry (`corpus/statutes.json`).
 *
 * @module
 */
import { z } from "zod";
import { INDUSTRIES, JURISDICTIONS } from "../shared/contract/vocabulary.ts";

/** The hard forms a case can exercise (issue 6); each needs at least 25 cases. */
export const HARD_FORMS = [
  "negation",
  "evasive",
  "persona_title",
  "hidden_disclosure",
  "obfuscation",
  "buried",
  "late_disclosure",
  "discussion",
  "out_of_scope",
  "described_asset",
] as const;
export type HardForm = typeof HARD_FORMS[number];

const Message = z.strictObject({
  sender: z.enum(["bot", "user"]),
  text: z.string().min(1),
  timestamp: z.iso.datetime({ offset: true }).optional(),
});

/** One labeled case. */
export const Case = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{2,80}$/),
  pair: z.string().regex(/^[a-z0-9][a-z0-9-]{2,80}$/).nullable(),
  label: z.enum(["violation", "compliant"]),
  surface: z.enum(["content", "website", "transcript"]),
  jurisdiction: z.enum(JURISDICTIONS),
  industry: z.enum(INDUSTRIES).nullable(),
  expect: z.array(z.string().min(1)),
  forms: z.array(z.enum(HARD_FORMS)),
  note: z.string().min(10).max(600),
  content: z.string().min(1).optional(),
  messages: z.array(Message).min(1).optional(),
  pad: z.strictObject({
    before: z.int().min(0).max(30_000),
    after: z.int().min(0).max(30_000),
  }).optional(),
}).superRefine((c, ctx) => {
  if (c.surface === "transcript") {
    if (c.messages === undefined || c.content !== undefined) {
      ctx.addIssue({ code: "custom", message: "a transcript case has messages and no content" });
    }
  } else if (c.content === undefined || c.messages !== undefined) {
    ctx.addIssue({
      code: "custom",
      message: "a content or website case has content and no messages",
    });
  }
  if (c.label === "violation" && c.expect.length === 0) {
    ctx.addIssue({ code: "custom", message: "a violation names at least one expected statute id" });
  }
  if (c.label === "compliant" && c.expect.length > 0) {
    ctx.addIssue({ code: "custom", message: "a compliant case expects no statute" });
  }
  if (c.pad !== undefined && c.surface === "transcript") {
    ctx.addIssue({ code: "custom", message: "pad is for content and website cases" });
  }
});
export type Case = z.infer<typeof Case>;

/** A case file. */
export const CaseFile = z.strictObject({ cases: z.array(Case) });
