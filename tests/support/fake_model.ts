/**
 * A fake OpenAI-compatible chat-completions server on 127.0.0.1 and an
 * ephemeral port, for the advisory tests: it records every request and
 * answers what the test scripts, so malformed answers, errors, stalls and a
 * model that obeys a prompt injection can all be played. Nothing else is
 * ever contacted.
 */

/** A request the fake model received. */
export interface ModelRequest {
  authorization: string | null;
  body: {
    model: string;
    messages: { role: string; content: string }[];
    [key: string]: unknown;
  };
}

/** What the fake answers: the `content` of the first choice, a raw Response, or a stall. */
export type ModelReply =
  | { content: string }
  | { response: () => Response }
  | { stallMs: number };

/** A running fake model. */
export interface FakeModel extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/v1/chat/completions` */
  url: string;
  requests: ModelRequest[];
  close(): Promise<void>;
}

/** Starts a fake model that answers each request with `reply(request)`. */
export async function startFakeModel(
  reply: (request: ModelRequest) => ModelReply,
): Promise<FakeModel> {
  const requests: ModelRequest[] = [];
  const stalls = new Set<() => void>();
  const listening = Promise.withResolvers<void>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => listening.resolve() },
    async (req) => {
      const request: ModelRequest = {
        authorization: req.headers.get("authorization"),
        body: await req.json(),
      };
      requests.push(request);
      const answer = reply(request);
      if ("stallMs" in answer) {
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            stalls.delete(done);
            resolve();
          };
          const timer = setTimeout(done, answer.stallMs);
          stalls.add(done);
        });
        return Response.json(completion('{"items":[]}'));
      }
      if ("response" in answer) return answer.response();
      return Response.json(completion(answer.content));
    },
  );
  await listening.promise;
  const close = () => {
    for (const done of [...stalls]) done();
    return server.shutdown();
  };
  return {
    url: `http://127.0.0.1:${server.addr.port}/v1/chat/completions`,
    requests,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** A chat-completions response whose first choice says `content`. */
export function completion(content: string) {
  return {
    id: "chatcmpl-test",
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
  };
}
