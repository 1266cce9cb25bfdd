// The floor of bench/cold_start.ts: the least any function here can be on its
// mandated stack. Like the hello world, plus the two libraries every function
// loads (zod for its request schema, postgres.js for DB_DRIVER postgres), one
// schema check of the body and one `select 1` round trip per request. No
// function can start faster than this; its ratio to the hello world bounds
// what the functions' ratios can reach.
import postgres from "postgres";
import { z } from "zod";

const sql = postgres(Deno.env.get("DATABASE_URL")!, { max: 1, onnotice: () => {} });
const Body = z.looseObject({});

Deno.serve(async (req) => {
  Body.parse(await req.json());
  await sql`select 1`;
  return new Response("ok");
});
