/**
 * The linear-time-safe regular-expression subset accepted in rulebooks.
 *
 * A pattern runs against up to 30,000 characters on every request, so a
 * rulebook may only hold patterns whose backtracking is bounded by a small
 * constant per start position. Accepted patterns:
 *
 * - are at most `MAX_PATTERN_CHARS` characters and compile as JavaScript regexes;
 * - have no backreferences (`\1`, `\k<name>`), no lookaround (`(?=`, `(?!`,
 *   `(?<=`, `(?<!`) and no inline modifiers; groups are `(...)`, `(?:...)` or
 *   `(?<name>...)`;
 * - have only bounded quantifiers: `?`, `{n}` and `{n,m}` with m at most
 *   `MAX_QUANTIFIER_BOUND`; never `*`, `+` or `{n,}`;
 * - never repeat (bound above 1) a group that holds an alternation or a quantifier;
 * - keep the product of (bound + 1) over all quantifiers at most `MAX_PATTERN_COST`;
 * - are accepted by `safe-regex2` (star height at most 1).
 *
 * @module
 */
import safeRegex from "safe-regex2";
import { MAX_PATTERN_CHARS } from "./rulebook_schema.ts";

/** Largest upper bound of a `{n,m}` quantifier. */
export const MAX_QUANTIFIER_BOUND = 64;
/** Largest product of (bound + 1) over the quantifiers of one pattern. */
export const MAX_PATTERN_COST = 10_000;

interface GroupState {
  hasAlternation: boolean;
  hasQuantifier: boolean;
}

/** Returns why a pattern is outside the safe subset, or null when it is accepted. */
export function patternSafetyProblem(source: string): string | null {
  if (source.length === 0) return "pattern is empty";
  if (source.length > MAX_PATTERN_CHARS) {
    return `pattern is longer than ${MAX_PATTERN_CHARS} characters`;
  }
  try {
    new RegExp(source, "i");
  } catch (error) {
    return `pattern is not a valid regular expression (${(error as Error).message})`;
  }
  const problem = syntaxProblem(source);
  if (problem !== null) return problem;
  if (!safeRegex(source)) return "pattern can backtrack catastrophically (safe-regex2)";
  return null;
}

function syntaxProblem(source: string): string | null {
  const stack: GroupState[] = [{ hasAlternation: false, hasQuantifier: false }];
  let cost = 1;
  let i = 0;
  // What a quantifier at position i would apply to: a closed group's state, or an atom.
  let lastGroup: GroupState | null = null;
  let lastIsAtom = false;
  while (i < source.length) {
    const c = source[i];
    if (c === "\\") {
      const next = source[i + 1] ?? "";
      if (/[1-9]/.test(next)) return "backreferences are not allowed";
      if (next === "k" && source[i + 2] === "<") return "backreferences are not allowed";
      i += 2;
      lastGroup = null;
      lastIsAtom = true;
      continue;
    }
    if (c === "[") {
      i = skipClass(source, i);
      lastGroup = null;
      lastIsAtom = true;
      continue;
    }
    if (c === "(") {
      let opening = 1;
      if (source[i + 1] === "?") {
        const kind = source[i + 2];
        if (kind === "=" || kind === "!") return "lookahead is not allowed";
        if (kind === "<" && (source[i + 3] === "=" || source[i + 3] === "!")) {
          return "lookbehind is not allowed";
        }
        if (kind === ":") opening = 3;
        else if (kind === "<") opening = source.indexOf(">", i) - i + 1; // named group
        else return "inline modifiers are not allowed";
      }
      stack.push({ hasAlternation: false, hasQuantifier: false });
      i += opening;
      lastGroup = null;
      lastIsAtom = false;
      continue;
    }
    if (c === ")") {
      const closed = stack.pop();
      if (closed === undefined || stack.length === 0) return "unbalanced parentheses";
      const parent = stack[stack.length - 1];
      parent.hasAlternation ||= closed.hasAlternation;
      parent.hasQuantifier ||= closed.hasQuantifier;
      lastGroup = closed;
      lastIsAtom = true;
      i += 1;
      continue;
    }
    if (c === "|") {
      stack[stack.length - 1].hasAlternation = true;
      lastGroup = null;
      lastIsAtom = false;
      i += 1;
      continue;
    }
    if (c === "*" || c === "+") return `unbounded quantifier "${c}" is not allowed; use {0,n}`;
    const quantifier = c === "?" ? { max: 1, length: 1 } : c === "{" ? readBraces(source, i) : null;
    if (quantifier !== null) {
      if (quantifier.max === Infinity) {
        return "unbounded quantifier {n,} is not allowed; use {n,m}";
      }
      if (!lastIsAtom) return "quantifier without a target";
      if (quantifier.max > MAX_QUANTIFIER_BOUND) {
        return `quantifier bound ${quantifier.max} exceeds ${MAX_QUANTIFIER_BOUND}`;
      }
      if (
        lastGroup !== null && quantifier.max > 1 &&
        (lastGroup.hasAlternation || lastGroup.hasQuantifier)
      ) {
        return "a repeated group may not contain an alternation or a quantifier";
      }
      cost *= quantifier.max + 1;
      if (cost > MAX_PATTERN_COST) {
        return `pattern is too costly (product of quantifier bounds exceeds ${MAX_PATTERN_COST})`;
      }
      stack[stack.length - 1].hasQuantifier = true;
      i += quantifier.length;
      // A lazy marker after a quantifier is harmless.
      if (source[i] === "?") i += 1;
      lastGroup = null;
      lastIsAtom = false;
      continue;
    }
    lastGroup = null;
    lastIsAtom = c !== "^" && c !== "$";
    i += 1;
  }
  if (stack.length !== 1) return "unbalanced parentheses";
  return null;
}

function skipClass(source: string, start: number): number {
  let i = start + 1;
  if (source[i] === "^") i += 1;
  if (source[i] === "]") i += 1;
  while (i < source.length && source[i] !== "]") i += source[i] === "\\" ? 2 : 1;
  return i + 1;
}

function readBraces(source: string, start: number): { max: number; length: number } | null {
  const match = /^\{(\d{1,6})(,(\d{0,6}))?\}/.exec(source.slice(start, start + 16));
  if (match === null) return null; // a literal brace
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : match[3] === "" ? Infinity : Number(match[3]);
  return { max, length: match[0].length };
}
