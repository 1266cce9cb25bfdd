import { createAdvisory } from "../advisory/advisory.ts";
import type { Config } from "../config.ts";
import type { ServiceDeps } from "../handlers/deps.ts";
import type { Logger } from "../log/logger.ts";
import { createSafeFetcher } from "./safe_fetcher.ts";

/**
 * What runWebsiteAudit needs beyond the other operations: the safe fetcher
 * with the configured allow-list and ports, and the optional model advisory.
 * Only runWebsiteAudit's function and the local server import this, so the
 * other functions' module graphs do not carry the scanner.
 */
export function scanDeps(
  config: Config,
  logger: Logger,
): Pick<ServiceDeps, "scanFetcher" | "advisory"> {
  return {
    scanFetcher: createSafeFetcher({
      allowedTargets: config.SCAN_ALLOWED_TARGETS,
      allowedPorts: config.SCAN_ALLOWED_PORTS,
    }),
    ...(config.ADVISORY_LLM_URL === undefined || config.ADVISORY_LLM_MODEL === undefined ? {} : {
      advisory: createAdvisory({
        url: config.ADVISORY_LLM_URL,
        model: config.ADVISORY_LLM_MODEL,
        apiKey: config.ADVISORY_LLM_API_KEY,
        logger,
      }),
    }),
  };
}
