/** The part of Supabase Edge Runtime's global the service uses. */
interface EdgeRuntimeGlobal {
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * Hands work that outlives a response to `EdgeRuntime.waitUntil` where the
 * runtime has it (Supabase Edge Functions), so the isolate is not frozen or
 * shut down before the work ends. Elsewhere (the local server, tests) the
 * work just runs on. Its failure is never unhandled: it is work the answer
 * does not depend on.
 */
export function handOff(work: Promise<unknown>): void {
  const settled = work.then(() => undefined, () => undefined);
  const runtime = (globalThis as { EdgeRuntime?: Partial<EdgeRuntimeGlobal> }).EdgeRuntime;
  if (typeof runtime?.waitUntil === "function") runtime.waitUntil(settled);
}
