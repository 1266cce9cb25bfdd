import assert from "node:assert/strict";
import { grade, gradeRisk, GRADES } from "../../shared/contract/grade.ts";
import { WebsiteAuditRequest, WebsiteAuditResponse } from "../../shared/contract/website_audit.ts";

Deno.test("grade() maps scores to A-F at 90, 75, 60 and 40", () => {
  const at = (score: number) => grade(score, { critical: 0 });
  assert.deepEqual(
    [100, 90, 89.99, 75, 74, 60, 59.5, 40, 39.9, 0].map(at),
    ["A", "A", "B", "B", "C", "C", "D", "D", "F", "F"],
  );
});

Deno.test("grade() caps a site with a critical finding at D, whatever its score", () => {
  assert.equal(grade(100, { critical: 1 }), "D");
  assert.equal(grade(60, { critical: 2 }), "D");
  assert.equal(grade(39, { critical: 1 }), "F");
});

Deno.test("gradeRisk() scores 100 minus the risk, clamped, on the same scale and cap", () => {
  assert.deepEqual(gradeRisk({ riskScore: 0, critical: 0 }), { score: 100, grade: "A" });
  assert.deepEqual(gradeRisk({ riskScore: 25, critical: 0 }), { score: 75, grade: "B" });
  assert.deepEqual(gradeRisk({ riskScore: 5, critical: 1 }), { score: 95, grade: "D" });
  assert.deepEqual(gradeRisk({ riskScore: 140, critical: 3 }), { score: 0, grade: "F" });
});

Deno.test("grade() refuses a score outside 0-100", () => {
  for (const score of [-1, 100.5, NaN]) {
    assert.throws(() => grade(score, { critical: 0 }), RangeError);
  }
  assert.deepEqual(GRADES, ["A", "B", "C", "D", "F"]);
});

Deno.test("WebsiteAuditRequest rejects unknown fields; WebsiteAuditResponse allows exactly contract 2.4", () => {
  assert.equal(WebsiteAuditRequest.safeParse({ target_url: "https://a.test/" }).success, true);
  assert.equal(
    WebsiteAuditRequest.safeParse({ target_url: "https://a.test/", jurisdiction: "CA" }).success,
    false,
  );
  const response = {
    score: 100,
    grade: "A",
    critical: [],
    warnings: [],
    passed: [],
    advisory: [],
    scan_meta: {
      fetched: true,
      status_code: 200,
      robots_respected: true,
      scan_duration_ms: 12.5,
      engine_version: "2.0.0",
      rulebook_source: "database",
    },
  };
  assert.equal(WebsiteAuditResponse.safeParse(response).success, true);
  assert.equal(WebsiteAuditResponse.safeParse({ ...response, scan_id: "x" }).success, false);
  assert.equal(
    WebsiteAuditResponse.safeParse({
      ...response,
      advisory: [{
        source: "llm_nuance",
        severity: "critical",
        title: "t",
        plain_english: "p",
        category: "c",
        statute_ref: null,
        statute_codes: null,
        evidence: [],
      }],
    }).success,
    false,
  );
});
