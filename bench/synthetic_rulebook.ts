/**
 * A synthetic rulebook k times the size of a real one, for measuring how the
 * engine's cost grows with the rulebook (bench/engine.ts).
 *
 * Copy 0 is the rulebook itself. Copies 1..k-1 repeat every concept,
 * definition and rule under new names, with the same shape (terms,
 * alternatives, optional parts, statements, composition, jurisdictions,
 * industries and surfaces) but a vocabulary of their own: every word gets a
 * suffix ("bot" becomes "botzqb"), so the copies' terms are as many and as
 * long as the real ones yet do not occur in ordinary content, as the terms of
 * another statute's rules mostly do not.
 *
 * @module
 */
import type { Atom, DetectorV2, Expression } from "../shared/engine/detector_schema.ts";
import type { Detector, Rule, Rulebook } from "../shared/engine/rulebook_schema.ts";

/** Letters-only suffix of copy c: "zqb", "zqc", ... ("zqba" past 25). */
function suffix(c: number): string {
  let s = "";
  let n = c;
  do {
    s += String.fromCharCode(97 + (n % 26));
    n = Math.floor(n / 26);
  } while (n > 0);
  return `zq${s}`;
}

/** `rulebook` repeated `k` times (k >= 1) under distinct names and vocabulary. */
export function scaleRulebook(rulebook: Rulebook, k: number): Rulebook {
  if (k <= 1) return rulebook;
  const concepts: Rulebook["concepts"] = { ...rulebook.concepts };
  const definitions: Record<string, Expression> = { ...(rulebook.definitions ?? {}) };
  const rules: Rule[] = [...rulebook.rules];
  for (let c = 1; c < k; c += 1) {
    const tail = suffix(c);
    const name = (n: string) => `${n}_${tail}`;
    const words = (text: string) => text.replace(/[\p{L}\p{N}]+/gu, (w) => w + tail);
    const atom = (a: Atom): Atom => {
      if (typeof a === "string") return name(a);
      if ("concept" in a) return { ...a, concept: name(a.concept) };
      return { ...a, terms: a.terms.map(words) };
    };
    const expression = (e: Expression): Expression => {
      if ("has" in e) return { has: atom(e.has) };
      if ("count" in e) return { ...e, count: atom(e.count) };
      if ("near" in e) return { ...e, near: [atom(e.near[0]), atom(e.near[1])] };
      if ("all" in e) return { all: e.all.map(expression) };
      if ("any" in e) return { any: e.any.map(expression) };
      if ("not" in e) return { not: expression(e.not) };
      if ("use" in e) return { use: name(e.use) };
      if ("in" in e) return { in: e.in, test: expression(e.test) };
      if ("reply" in e) {
        const { to, lacks, has } = e.reply;
        return {
          reply: {
            to: atom(to),
            ...(lacks === undefined ? {} : { lacks: expression(lacks) }),
            ...(has === undefined ? {} : { has: expression(has) }),
          },
        };
      }
      if ("gap" in e) return { gap: { ...e.gap, atom: atom(e.gap.atom) } };
      if ("window" in e) return { window: { ...e.window, event: atom(e.window.event) } };
      return e;
    };
    const detector = (d: Detector | DetectorV2): Detector | DetectorV2 => {
      if ("kind" in d && d.kind === "v2") {
        return {
          kind: "v2",
          ...(d.applies === undefined ? {} : { applies: expression(d.applies) }),
          ...(d.exempt === undefined ? {} : { exempt: expression(d.exempt) }),
          violation: expression(d.violation),
        };
      }
      const v1 = d as Detector;
      const matcher = (m: Detector["any"][number]) => typeof m === "string" ? words(m) : m;
      return {
        any: v1.any.map(matcher),
        ...(v1.all === undefined ? {} : { all: v1.all.map(matcher) }),
        ...(v1.none === undefined ? {} : { none: v1.none.map(matcher) }),
      };
    };
    for (const [n, concept] of Object.entries(rulebook.concepts)) {
      concepts[name(n)] = "terms" in concept
        ? { ...concept, terms: concept.terms.map(words) }
        : { ...concept, statement: words(concept.statement) };
    }
    for (const [n, body] of Object.entries(rulebook.definitions ?? {})) {
      definitions[name(n)] = expression(body);
    }
    for (const rule of rulebook.rules) {
      rules.push({
        ...rule,
        rule_key: `${rule.rule_key}_${tail}`,
        ...(rule.concern === undefined ? {} : { concern: `${rule.concern}_${tail}` }),
        detector: detector(rule.detector),
      } as Rule);
    }
  }
  return { ...rulebook, concepts, definitions, rules };
}
