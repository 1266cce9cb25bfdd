/**
 * Loads the labeled corpus: every `corpus/cases/*.json` file, checked against
 * the case schema and the statute registry, with padded cases expanded.
 *
 * Run `deno run --allow-read corpus/load.ts` to check the files and print a
 * summary.
 *
 * @module
 */
import { type Case, CaseFile, HARD_FORMS } from "./case_schema.ts";
import { codePointLength, MAX_CONTENT_CHARS } from "../shared/contract/audit.ts";

/** Where the corpus lives. */
export const CORPUS_DIR = new URL("./", import.meta.url);

/** The longest content a case may have, as the contract's content limit. */

/** A case ready to evaluate: padded content expanded, its file recorded. */
export interface LoadedCase extends Case {
  file: string;
  /** The content to evaluate (pad expanded); undefined for transcripts. */
  text?: string;
  /** Whether the case belongs to the held-out third (never looked at while tuning). */
  heldOut: boolean;
}

/** The statute ids a case may expect. */
export async function statuteIds(): Promise<Set<string>> {
  const registry = JSON.parse(await Deno.readTextFile(new URL("statutes.json", CORPUS_DIR)));
  return new Set<string>([
    ...registry.statutes.map((s: { id: string }) => s.id),
    ...registry.cross_state.map((s: { id: string }) => s.id),
  ]);
}

/** Reads, checks and expands every case; throws with the file and case id on the first problem. */
export async function loadCorpus(): Promise<LoadedCase[]> {
  const ids = await statuteIds();
  const filler = await fillerParagraphs();
  const files: string[] = [];
  for await (const entry of Deno.readDir(new URL("cases/", CORPUS_DIR))) {
    if (entry.isFile && entry.name.endsWith(".json")) files.push(entry.name);
  }
  files.sort();
  const cases: LoadedCase[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    const raw = JSON.parse(await Deno.readTextFile(new URL(`cases/${file}`, CORPUS_DIR)));
    const parsed = CaseFile.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const index = issue.path[1];
      const id = typeof index === "number" ? raw?.cases?.[index]?.id : undefined;
      throw new Error(
        `${file}${id ? ` case ${id}` : ""}: ${issue.path.join(".")}: ${issue.message}`,
      );
    }
    for (const c of parsed.data.cases) {
      if (seen.has(c.id)) throw new Error(`${file}: duplicate case id ${c.id}`);
      seen.add(c.id);
      for (const id of c.expect) {
        if (!ids.has(id)) throw new Error(`${file} case ${c.id}: unknown statute id ${id}`);
      }
      const text = c.content === undefined ? undefined : expand(c, filler);
      if (text !== undefined && codePointLength(text) > MAX_CONTENT_CHARS) {
        throw new Error(`${file} case ${c.id}: content is over ${MAX_CONTENT_CHARS} characters`);
      }
      if (c.forms.includes("buried") && text !== undefined && text.length < 15_000) {
        throw new Error(`${file} case ${c.id}: a buried case is 15,000 to 30,000 characters`);
      }
      cases.push({ ...c, file, text, heldOut: await isHeldOut(c.pair ?? c.id) });
    }
  }
  checkPairs(cases);
  return cases;
}

function checkPairs(cases: LoadedCase[]): void {
  const pairs = new Map<string, LoadedCase[]>();
  for (const c of cases) {
    if (c.pair === null) continue;
    pairs.set(c.pair, [...(pairs.get(c.pair) ?? []), c]);
  }
  for (const [pair, members] of pairs) {
    const labels = members.map((m) => m.label).sort().join(",");
    if (labels !== "compliant,violation") {
      throw new Error(`pair ${pair}: a twin pair is one violation and one compliant case`);
    }
  }
}

/**
 * The held-out third: chosen by a digest of the pair (or the case id), so
 * twins stay together and the split never depends on file order.
 */
export async function isHeldOut(key: string): Promise<boolean> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`corpus-split:${key}`)),
  );
  return digest[0] % 3 === 0;
}

async function fillerParagraphs(): Promise<string[]> {
  try {
    const text = await Deno.readTextFile(new URL("filler.md", CORPUS_DIR));
    return text.split(/\n\s*\n/).map((p) => p.replace(/\s+/g, " ").trim()).filter((p) =>
      p.length > 0 && !p.startsWith("#")
    );
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

/** The case's content with its neutral padding before and after. */
function expand(c: Case, filler: string[]): string {
  const content = c.content as string;
  if (c.pad === undefined) return content;
  if (filler.length === 0) throw new Error(`case ${c.id}: pad needs corpus/filler.md`);
  let seed = 0;
  for (const ch of c.id) seed = (seed * 31 + ch.charCodeAt(0)) >>> 0;
  const before = fill(filler, seed, c.pad.before);
  const after = fill(filler, seed + 7, c.pad.after);
  return [before, content, after].filter((part) => part !== "").join("\n\n");
}

function fill(filler: string[], seed: number, chars: number): string {
  if (chars === 0) return "";
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i += 1) {
    const paragraph = filler[(seed + i) % filler.length];
    parts.push(paragraph);
    length += paragraph.length + 2;
  }
  return parts.join("\n\n").slice(0, chars).replace(/\s+\S*$/, "");
}

if (import.meta.main) {
  const cases = await loadCorpus();
  const count = (pred: (c: LoadedCase) => boolean) => cases.filter(pred).length;
  console.log(`${cases.length} cases in ${new Set(cases.map((c) => c.file)).size} files`);
  console.log(
    `violations ${count((c) => c.label === "violation")}, compliant ${
      count((c) => c.label === "compliant")
    }, in twin pairs ${count((c) => c.pair !== null)}, held out ${count((c) => c.heldOut)}`,
  );
  for (const surface of ["content", "website", "transcript"]) {
    console.log(`surface ${surface}: ${count((c) => c.surface === surface)}`);
  }
  for (const form of HARD_FORMS) {
    console.log(`form ${form}: ${count((c) => c.forms.includes(form))}`);
  }
  const byStatute = new Map<string, number>();
  for (const c of cases) for (const id of c.expect) byStatute.set(id, (byStatute.get(id) ?? 0) + 1);
  console.log(
    "violations per statute:",
    [...byStatute].sort().map(([id, n]) => `${id}=${n}`).join(" "),
  );
}
