import type { z } from "zod";

const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;
/** A name shaped like a token: a credential prefix, or three or more digits in it. */
const SECRET_LIKE = /^(?:sk|pk|rk|cas|sb|whsec|xox[a-z]?|ghp|gho|glpat)[_-]|\d[^\d]*\d[^\d]*\d/i;

/**
 * One readable sentence from a zod error: the first issue with its path, e.g.
 * `jurisdiction: Invalid option`, except that an unknown field comes first (a
 * misspelt or aliased name, `role` for `sender`, also leaves the right one
 * missing; the unknown name says what to fix). Never echoes the rejected value.
 */
export function validationMessage(error: z.ZodError): string {
  const issue = error.issues.find((candidate) => candidate.code === "unrecognized_keys") ??
    error.issues[0];
  if (issue === undefined) return "Invalid request";
  const path = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    // Field names are echoed only when they look like field names: a key or
    // secret pasted as a name (a token prefix such as `sk_`, or digits mixed
    // in) never comes back in a response.
    const names = issue.keys.filter((key) => FIELD_NAME.test(key) && !SECRET_LIKE.test(key));
    const plural = issue.keys.length > 1 ? "s" : "";
    const where = path === "" ? "" : ` in ${path}`;
    return names.length === issue.keys.length
      ? `Unknown field${plural}${where}: ${names.join(", ")}`
      : `Unknown field${plural}${where}`;
  }
  return path === "" ? issue.message : `${path}: ${issue.message}`;
}
