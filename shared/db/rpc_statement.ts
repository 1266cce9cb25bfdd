/**
 * How an RPC call becomes SQL for the direct drivers (PGlite, postgres.js):
 * `select public.<name>(p_a => $1, p_b => $2) as result`, with identifiers
 * checked before they reach the SQL text and values sent as parameters.
 */
import { DbError } from "./db.ts";

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** SQLSTATE `invalid_name`: the error code of a refused RPC or argument name. */
export const INVALID_NAME_CODE = "42602";

/** A parameterised statement. */
export interface RpcStatement {
  text: string;
  values: unknown[];
}

/** Throws a DbError unless `name` is a lowercase SQL identifier. */
export function assertIdentifier(name: string, what: "RPC" | "argument"): void {
  if (typeof name !== "string" || name.length > 63 || !IDENTIFIER.test(name)) {
    throw new DbError(`Invalid ${what} name`, INVALID_NAME_CODE);
  }
}

/** How a driver receives a JSON (object or array) argument. */
export type JsonEncoder = (value: object) => unknown;

/** The default JSON encoding: JSON text, which a jsonb parameter parses. */
export const jsonText: JsonEncoder = (value) => JSON.stringify(value);

/**
 * The value of one argument as the drivers receive it: Date as an ISO string,
 * plain objects and arrays through `json` (for jsonb parameters), bigint as its
 * decimal string. Non-finite numbers are refused. Never echoes the value.
 */
export function encodeArgument(value: unknown, json: JsonEncoder = jsonText): unknown {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new DbError("Invalid argument value: non-finite number");
    return value;
  }
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new DbError("Invalid argument value: invalid date");
    return value.toISOString();
  }
  if (typeof value === "object") return json(value);
  throw new DbError(`Invalid argument value of type ${typeof value}`);
}

/**
 * Builds the statement of `public.<name>(...)` with named arguments; arguments
 * whose value is `undefined` are left out so the function's default applies,
 * as supabase-js does when it serialises the arguments to JSON.
 */
export function rpcStatement(
  name: string,
  args: Record<string, unknown> = {},
  json: JsonEncoder = jsonText,
): RpcStatement {
  assertIdentifier(name, "RPC");
  const parts: string[] = [];
  const values: unknown[] = [];
  for (const [key, value] of Object.entries(args)) {
    assertIdentifier(key, "argument");
    if (value === undefined) continue;
    values.push(encodeArgument(value, json));
    parts.push(`${key} => $${values.length}`);
  }
  return { text: `select public.${name}(${parts.join(", ")}) as result`, values };
}
