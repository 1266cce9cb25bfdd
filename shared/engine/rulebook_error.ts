/**
 * The error of a refused rulebook, in a module of its own so that the
 * per-isolate cache can throw it without loading the validator (and its
 * pattern-safety checker) for a sealed rulebook.
 *
 * @module
 */

/** A rulebook was refused; the message names the rule (or concept) and the offending field. */
export class RulebookError extends Error {
  /** The rule_key of the offending rule, when one is known. */
  readonly ruleKey: string | null;

  constructor(message: string, ruleKey: string | null = null) {
    super(message);
    this.name = "RulebookError";
    this.ruleKey = ruleKey;
  }
}
