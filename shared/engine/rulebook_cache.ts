/**
 * Per-isolate cache of compiled rulebooks, keyed by version. A version is
 * loaded, validated (or its seal checked) and compiled once; concurrent first requests share the
 * same load. A failed load is not cached, so the next request retries; there
 * is no fallback rulebook.
 *
 * @module
 */
import { type CompiledRulebook, compileRulebook } from "./compiler.ts";
import { RulebookError } from "./rulebook_error.ts";
import { isSealed, SealedDocument, sealedRulebook } from "./rulebook_seal.ts";

/**
 * Loads the rulebook document of a version (e.g. from the database); it is
 * validated before use, unless it comes as a SealedDocument whose seal
 * matches it (rulebook_seal.ts).
 */
export type RulebookLoader = (version: number) => Promise<unknown>;

/** Versions kept per isolate; the oldest inserted is evicted first. */
export const MAX_CACHED_VERSIONS = 8;

const cache = new Map<number, Promise<CompiledRulebook>>();

/** Returns the compiled rulebook of a version, loading and compiling it once per isolate. */
export function getCompiledRulebook(
  version: number,
  load: RulebookLoader,
): Promise<CompiledRulebook> {
  const cached = cache.get(version);
  if (cached !== undefined) return cached;
  const pending = (async () => {
    const loaded = await load(version);
    const rulebook = loaded instanceof SealedDocument && await isSealed(loaded)
      ? sealedRulebook(loaded.document)
      // The validator is imported only for a document without a matching seal.
      : (await import("./rulebook_validation.ts")).validateRulebook(
        loaded instanceof SealedDocument ? loaded.document : loaded,
      );
    if (rulebook.version !== version) {
      throw new RulebookError(
        `Loaded rulebook has version ${rulebook.version}, expected ${version}`,
      );
    }
    return compileRulebook(rulebook);
  })();
  cache.set(version, pending);
  pending.catch(() => {
    if (cache.get(version) === pending) cache.delete(version);
  });
  while (cache.size > MAX_CACHED_VERSIONS) {
    const oldest = cache.keys().next().value as number;
    cache.delete(oldest);
  }
  return pending;
}

/** Empties the per-isolate rulebook cache (for tests). */
export function clearRulebookCache(): void {
  cache.clear();
}
