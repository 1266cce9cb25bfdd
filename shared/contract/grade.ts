/**
 * The letter grade of a score (0 to 100, 100 clean), shared by every operation
 * that answers one (runWebsiteAudit, webhookIngest).
 *
 * | grade | score | and |
 * | --- | --- | --- |
 * | `A` | 90 to 100 | no critical finding |
 * | `B` | 75 to 89 | no critical finding |
 * | `C` | 60 to 74 | no critical finding |
 * | `D` | 40 to 59, or any score with a critical finding | |
 * | `F` | below 40 | |
 *
 * A critical finding is a statutory violation: it caps the grade at D, so a
 * site that breaks a statute never reads as passing, whatever its score.
 *
 * The score is 100 − the engine's `risk_score` (the capped sum of the weights
 * of the triggered rules), so 100 is clean and 0 the worst: {@linkcode gradeRisk}.
 *
 * @module
 */

/** The grades, best first. */
export const GRADES = ["A", "B", "C", "D", "F"] as const;
export type Grade = typeof GRADES[number];

/** Lowest score of each grade, A to D (F is anything below D's). */
export const GRADE_FLOORS: Readonly<Record<Exclude<Grade, "F">, number>> = {
  A: 90,
  B: 75,
  C: 60,
  D: 40,
};

/**
 * The grade of a score; a critical finding caps it at D.
 *
 * @example
 * ```ts
 * grade(100, { critical: 0 }); // "A"
 * grade(70, { critical: 1 });  // "D"
 * ```
 * @throws {RangeError} for a score outside 0 to 100 or a negative count.
 */
export function grade(score: number, findings: { critical: number }): Grade {
  if (!(score >= 0 && score <= 100)) throw new RangeError("score must be between 0 and 100");
  if (!(findings.critical >= 0)) throw new RangeError("critical must be 0 or more");
  if (score < GRADE_FLOORS.D) return "F";
  if (findings.critical > 0) return "D";
  if (score >= GRADE_FLOORS.A) return "A";
  if (score >= GRADE_FLOORS.B) return "B";
  if (score >= GRADE_FLOORS.C) return "C";
  return "D";
}

/** A score and its grade. */
export interface Graded {
  score: number;
  grade: Grade;
}

/**
 * The score and grade of an evaluation, from its risk score (0 to 100) and
 * its number of critical findings.
 *
 * @example
 * ```ts
 * gradeRisk({ riskScore: 0, critical: 0 }); // { score: 100, grade: "A" }
 * gradeRisk({ riskScore: 5, critical: 1 }); // { score: 95, grade: "D" }
 * ```
 */
export function gradeRisk(input: { riskScore: number; critical: number }): Graded {
  const score = Math.max(0, Math.min(100, 100 - input.riskScore));
  return { score, grade: grade(score, { critical: Math.max(0, input.critical) }) };
}
