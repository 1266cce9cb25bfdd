import { ADDRESS_REFUSAL_PHRASES, canonicalAddress, classifyAddress } from "./address_policy.ts";
import { type AllowedTarget, isAllowListed } from "./allowed_targets.ts";
import type { Resolver } from "./resolver.ts";
import { ScanError } from "./scan_error.ts";
import type { ScanTarget } from "./target_url.ts";

/** What decides where the scanner may connect. */
export interface TargetPolicy {
  resolve: Resolver;
  /** Exact IP literals (and ports) reachable despite the address classes; empty in production. */
  allowedTargets: readonly AllowedTarget[];
  /** Ports a target may use; [80, 443] by default. */
  allowedPorts: readonly number[];
}

/** Where a checked target may be reached: only these addresses, only this port. */
export interface CheckedTarget {
  addresses: string[];
  port: number;
}

/**
 * Decides whether the scanner may connect to `target`, and to which
 * addresses. In order: `localhost` and `*.localhost` are refused by name; an
 * IP literal written exactly as an allow-list entry passes on that entry's
 * port(s); any other IP literal must be a public unicast address on an
 * allowed port; a name must be on an allowed port and every address it
 * resolves to must be public (one private address refuses the name, and the
 * allow-list never applies to names). A name with no address is refused.
 *
 * @throws {ScanError} `policy_refused` (403) naming the reason class, never
 *   the address; `unreachable` (502, reason `dns`) when resolution fails; the
 *   signal's reason when it fires.
 */
export async function checkTarget(
  target: ScanTarget,
  policy: TargetPolicy,
  signal: AbortSignal,
): Promise<CheckedTarget> {
  const url = target.url;
  const port = url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const literal = canonicalAddress(host);
  if (literal !== undefined) {
    if (
      target.hostAsWritten &&
      isAllowListed(policy.allowedTargets, literal, port, policy.allowedPorts)
    ) {
      return { addresses: [literal], port };
    }
    const verdict = classifyAddress(host);
    if (!verdict.allowed) {
      throw refused(verdict.reason, `The target is ${ADDRESS_REFUSAL_PHRASES[verdict.reason]}`);
    }
    assertPort(port, policy);
    return { addresses: [verdict.address], port };
  }
  const name = host.toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) {
    throw refused("localhost", "The target is a localhost name");
  }
  assertPort(port, policy);
  let resolved: string[];
  try {
    resolved = await policy.resolve(host, { signal });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw new ScanError("unreachable", "dns", "The target's host name could not be resolved", {
      cause: error,
    });
  }
  if (signal.aborted) throw signal.reason;
  if (resolved.length === 0) {
    throw refused("no_address", "The target's host name does not resolve to any address");
  }
  const addresses = new Set<string>();
  for (const address of resolved) {
    const verdict = classifyAddress(address);
    if (!verdict.allowed) {
      throw refused(
        verdict.reason,
        `The target resolves to ${ADDRESS_REFUSAL_PHRASES[verdict.reason]}`,
      );
    }
    addresses.add(verdict.address);
  }
  return { addresses: [...addresses], port };
}

function assertPort(port: number, policy: TargetPolicy): void {
  if (!policy.allowedPorts.includes(port)) {
    throw refused(
      "port",
      `The target's port is not allowed (allowed: ${policy.allowedPorts.join(", ")})`,
    );
  }
}

function refused(reason: string, message: string): ScanError {
  return new ScanError("policy_refused", reason, message);
}
