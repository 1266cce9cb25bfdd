import type { z } from "zod";

/**
 * One readable sentence from a zod error: the first issue with its path, e.g.
 * `jurisdiction: Invalid option`. Never echoes the rejected value.
 */
export function validationMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return "Invalid request";
  if (issue.code === "unrecognized_keys") {
    return `Unknown field${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.join(", ")}`;
  }
  const path = issue.path.map(String).join(".");
  return path === "" ? issue.message : `${path}: ${issue.message}`;
}
