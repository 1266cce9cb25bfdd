import { type Config, ConfigError, loadConfig, processEnv } from "../shared/config.ts";

/**
 * The process's configuration; a malformed environment ends the process with
 * exit code 2 and a message naming the variable.
 */
export function processConfig(): Config {
  try {
    return loadConfig(processEnv());
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      Deno.exit(2);
    }
    throw error;
  }
}
