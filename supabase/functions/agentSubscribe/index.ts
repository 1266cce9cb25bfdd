import { functionDeps } from "@shared/function_deps.ts";
import { agentSubscribe } from "@shared/handlers/agent_subscribe.ts";

Deno.serve(agentSubscribe(functionDeps()));
