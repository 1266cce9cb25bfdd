/**
 * A small format-2 rulebook of website rules for the runWebsiteAudit tests,
 * so that they assert what the handler does with findings (split, evidence,
 * score, precedence across pages) without depending on the seed rulebook,
 * which changes with the engine's tuning. Its version (901) is one no seed
 * uses, so the per-isolate rulebook cache never mixes the two.
 */
import type { RulebookV2Document } from "../../shared/engine/mod.ts";

export const TEST_RULEBOOK_VERSION = 901;

const statute = (
  id: string,
  jurisdiction: "ALL" | "CA",
  penalty: number,
  backstop = false,
) => ({
  id,
  jurisdiction,
  citation: `Test Code §${id}`,
  effective: "2020-01-01",
  penalty_usd: penalty,
  penalty_basis: "a test statute",
  tier_key: penalty >= 2500 ? "tier2_significant" as const : "tier3_standard" as const,
  ...(backstop ? { backstop: true } : {}),
});

const text = (title: string) => ({
  title,
  plain_english: `${title}: explained in plain words.`,
  remediation_title: `Fix: ${title}`,
  remediation: "Change the page.",
});

/** The rulebook document, as it is imported. */
export const TEST_WEBSITE_RULEBOOK: RulebookV2Document = {
  version: TEST_RULEBOOK_VERSION,
  format: 2,
  statutes: [
    statute("T-BOT", "CA", 2500),
    statute("T-UCL", "CA", 2500, true),
    statute("T-MEDIA", "ALL", 1000),
    statute("T-HEALTH", "ALL", 1000),
  ],
  concepts: {
    chat_vendor: {
      description: "a chat widget vendor named in a script or frame source",
      terms: ["intercom", "driftt", "tawk", "tidio", "crisp", "livechatinc", "zdassets"],
    },
    ai_disclosure: {
      description: "a statement that the visitor talks to AI",
      terms: ["ai assistant", "automated assistant", "you are chatting with a bot", "chatbot"],
    },
    human_claim: { description: "a claim that humans answer", terms: ["real human agents"] },
    synthetic_media: {
      description: "a synthetic performer or cloned voice",
      terms: ["digital twin", "synthetic presenter", "cloned voice"],
    },
    ai_label: {
      description: "a label that media is AI-generated",
      terms: ["ai generated", "generated with ai", "created with ai"],
    },
    health_data: {
      description: "health data a form asks for",
      terms: ["medical history", "diagnosis", "current symptoms"],
    },
    health_notice: {
      description: "a notice of how health data is used",
      terms: ["health data notice"],
    },
  },
  rules: [
    {
      rule_key: "t_chat_widget_undisclosed",
      applies_to: ["website"],
      jurisdictions: ["CA"],
      industries: [],
      detector: {
        kind: "v2",
        applies: { has: { concept: "chat_vendor", where: ["hidden"] } },
        violation: { not: { has: { concept: "ai_disclosure", visible: true } } },
      },
      severity: "critical",
      weight: 40,
      statute_ids: ["T-BOT"],
      concern: "ai_identity",
      statute_codes: ["T-BOT"],
      category: "ai_disclosure",
      ...text("Chat widget without a visible AI disclosure"),
    },
    {
      rule_key: "t_ucl_human_claim",
      applies_to: ["website"],
      jurisdictions: ["CA"],
      industries: [],
      detector: { kind: "v2", violation: { has: "human_claim" } },
      severity: "warning",
      weight: 10,
      statute_ids: ["T-UCL"],
      concern: "ai_identity",
      statute_codes: null,
      category: "deception",
      ...text("Claims humans answer"),
    },
    {
      rule_key: "t_synthetic_media_unlabeled",
      applies_to: ["website"],
      jurisdictions: ["ALL"],
      industries: [],
      detector: {
        kind: "v2",
        applies: { has: "synthetic_media" },
        violation: { not: { has: "ai_label" } },
      },
      severity: "warning",
      weight: 15,
      statute_ids: ["T-MEDIA"],
      concern: "synthetic_media",
      statute_codes: null,
      category: "synthetic_media",
      ...text("Synthetic media without an AI label"),
    },
    {
      rule_key: "t_health_form_notice",
      applies_to: ["website"],
      jurisdictions: ["ALL"],
      industries: [],
      detector: {
        kind: "v2",
        applies: { has: "health_data" },
        violation: { not: { has: "health_notice" } },
      },
      severity: "warning",
      weight: 10,
      statute_ids: ["T-HEALTH"],
      concern: "health_data",
      statute_codes: ["T-HEALTH"],
      category: "data_collection",
      ...text("Health form without a notice"),
    },
  ],
};

/** The rulebook as the rulebook_get RPC returns it. */
export function testRulebookRow() {
  return { ...TEST_WEBSITE_RULEBOOK, status: "active", published_at: null };
}
