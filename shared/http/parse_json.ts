import type { z } from "zod";
import { validationMessage } from "../contract/validation_message.ts";
import { HttpError } from "./http_error.ts";
import { readJsonBody, type ReadJsonBodyOptions } from "./read_body.ts";

/** Options of {@linkcode parseJson}: those of readJsonBody. */
export type ParseJsonOptions = ReadJsonBodyOptions;

/**
 * Reads a JSON request body (capped at `maxBytes`, within its deadline) and
 * parses it with a contract schema. Every refusal is an HttpError 400
 * `invalid_request` (415 for a compressed body), which the endpoint answers
 * in its own envelope: a content type other than `application/json`, an
 * oversized, late or unreadable body, text that is not JSON, and a value the
 * schema rejects (the message names the field, never echoes the value).
 *
 * @example
 * ```ts
 * const input = await parseJson(req, AuditRequest, { maxBytes: 256 * 1024 });
 * ```
 */
export async function parseJson<Schema extends z.ZodType>(
  req: Request,
  schema: Schema,
  options: ParseJsonOptions,
): Promise<z.output<Schema>> {
  return parseInput(schema, await readJsonBody(req, options));
}

/**
 * Parses a value already read from the body with a contract schema; a value
 * the schema rejects is an HttpError 400 `invalid_request`.
 */
export function parseInput<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
): z.output<Schema> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new HttpError(400, "invalid_request", validationMessage(parsed.error));
  }
  return parsed.data;
}
