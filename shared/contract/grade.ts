/**
 * The score and grade of an evaluation, as webhookIngest answers them (and
 * runWebsiteAudit may): one place, so that every operation grades alike.
 *
 * - `score` = 100 − `risk_score` (the engine's min(100, sum of the weights of
 *   the triggered rules)), so 100 is clean and 0 is the worst.
 * - `grade` by score: `A` 90–100, `B` 80–89.99, `C` 70–79.99, `D` 60–69.99,
 *   `F` below 60; with any critical violation the grade is `D` at best, so a
 *   critical finding of small weight never earns an A.
 *
 * @module
 */

/** The grades, best first. */
export const GRADES = ["A", "B", "C", "D", "F"] as const;
export type Grade = typeof GRADES[number];

/** The lowest score of each grade above F, best first. */
export const GRADE_FLOORS: ReadonlyArray<readonly [Grade, number]> = [
  ["A", 90],
  ["B", 80],
  ["C", 70],
  ["D", 60],
];

/** The best grade an evaluation with a critical violation can have. */
export const BEST_GRADE_WITH_CRITICAL: Grade = "D";

/** A score and its grade. */
export interface Graded {
  score: number;
  grade: Grade;
}

/**
 * Grades an evaluation from its risk score (0 to 100) and its number of
 * critical violations.
 *
 * @example
 * ```ts
 * grade({ riskScore: 0, critical: 0 });  // { score: 100, grade: "A" }
 * grade({ riskScore: 5, critical: 1 });  // { score: 95, grade: "D" }
 * ```
 */
export function grade(input: { riskScore: number; critical: number }): Graded {
  const score = Math.max(0, Math.min(100, 100 - input.riskScore));
  const byScore = GRADE_FLOORS.find(([, floor]) => score >= floor)?.[0] ?? "F";
  const capped =
    input.critical > 0 && GRADES.indexOf(byScore) < GRADES.indexOf(BEST_GRADE_WITH_CRITICAL)
      ? BEST_GRADE_WITH_CRITICAL
      : byScore;
  return { score, grade: capped };
}
