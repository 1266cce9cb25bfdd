import type { z } from "zod";

const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;

/**
 * One readable sentence from a zod error: the first issue with its path, e.g.
 * `jurisdiction: Invalid option`. Never echoes the rejected value.
 */
export function validationMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return "Invalid request";
  if (issue.code === "unrecognized_keys") {
    // Field names are echoed only when they look like field names: a key or
    // secret pasted as a name never comes back in a response.
    const names = issue.keys.filter((key) => FIELD_NAME.test(key));
    const plural = issue.keys.length > 1 ? "s" : "";
    return names.length === issue.keys.length
      ? `Unknown field${plural}: ${names.join(", ")}`
      : `Unknown field${plural}`;
  }
  const path = issue.path.map(String).join(".");
  return path === "" ? issue.message : `${path}: ${issue.message}`;
}
