// The hello world of bench/cold_start.ts: the least a Deno HTTP server can be.
Deno.serve(() => new Response("ok"));
