import type { z } from "zod";
import { type Db, DbError } from "./db.ts";

/** A typed call of one Postgres function: its input in, its parsed result out. */
export type RpcFunction<Input, Output> = (db: Db, input: Input) => Promise<Output>;

/**
 * Declares a typed RPC: the function's name, how an input becomes its named
 * arguments (the only place those `p_` names are written) and the zod schema
 * of its jsonb result. A result that does not match is a DbError, so a caller
 * never sees an unchecked value and a response never carries one.
 *
 * @example
 * ```ts
 * const rulebookActivate = rpcFunction(
 *   "rulebook_activate",
 *   (version: number) => ({ p_version: version }),
 *   z.object({ version: z.number().int(), previous_version: z.number().int().nullable() }),
 * );
 * await rulebookActivate(db, 2);
 * ```
 */
export function rpcFunction<Input, Output>(
  name: string,
  args: (input: Input) => Record<string, unknown>,
  result: z.ZodType<Output>,
): RpcFunction<Input, Output> {
  return async (db, input) => {
    const parsed = result.safeParse(await db.rpc(name, args(input)));
    if (!parsed.success) {
      // The issue's path names the field; the value is never repeated.
      const issue = parsed.error.issues[0];
      throw new DbError(
        `${name} returned an unexpected result at ${issue?.path.join(".") || "(root)"}`,
      );
    }
    return parsed.data;
  };
}
