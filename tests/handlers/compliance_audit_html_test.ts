/**
 * complianceAudit loads the HTML reader (and linkedom) only when content is
 * HTML (shared/engine/document/html_reader.ts). This file imports nothing
 * that loads it beforehand (the handler and the fakes only), so the first
 * HTML audit here goes through the on-demand import.
 */
import assert from "node:assert/strict";
import { AuditResponse } from "../../shared/contract/audit.ts";
import { complianceAudit } from "../../shared/handlers/compliance_audit.ts";
import { fakeAccount, fakeDeps, from, jsonRequest } from "../support/fake_deps.ts";

const TEXT =
  "Hi! I'm Ava, the clinic's AI assistant. As a licensed therapist, I can help. Are you a real person? Yes, I'm a real person.";
// The same words with markup between them: read as plain text, the tags
// would sit inside the phrases; read as HTML, the words are the same.
const HTML =
  "<div><p>Hi! I'm Ava, the clinic's <b>AI assistant</b>. As a <em>licensed</em> <strong>therapist</strong>, I can help.</p><p>Are you a real person?</p><p>Yes, I'm a <b>real</b> person.</p></div>";

Deno.test("complianceAudit() audits HTML content through the HTML reader, loaded on demand", async () => {
  const deps = fakeDeps();
  const { apiKey } = await fakeAccount(deps.db, { plan: "enterprise" });
  const audit = async (content: string) => {
    const response = await complianceAudit(deps)(
      jsonRequest(
        "complianceAudit",
        { content, jurisdiction: "CA", industry: "healthcare" },
        { "x-api-key": apiKey },
      ),
      from("127.0.0.1"),
    );
    assert.equal(response.status, 200, await response.clone().text());
    return AuditResponse.parse(await response.json());
  };
  const html = await audit(HTML);
  const text = await audit(TEXT);
  assert.equal(html.verdict, "RED");
  assert.deepEqual(
    html.remediation.map((item) => item.rule_key),
    text.remediation.map((item) => item.rule_key),
  );
  assert.ok(html.remediation.some((item) => item.rule_key === "ca_ab489_implied_license"));
});
