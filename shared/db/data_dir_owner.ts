/**
 * Who owns an embedded data directory. PGlite keeps no lock of its own: two
 * processes opening one directory would each write their own pages, and one's
 * writes would be lost. The owner holds an exclusive lock on `<DATA_DIR>.lock`
 * (released by the OS when the process ends, however it ends) and writes
 * there what others need: its pid, its role and, for the local server, the
 * loopback socket through which the database is reachable meanwhile.
 */

/** What an owner publishes. */
export interface DataDirOwner {
  pid: number;
  role: "server" | "admin";
  /** The local server's Postgres socket, e.g. `postgres://postgres@127.0.0.1:54322/postgres`. */
  socketUrl?: string;
}

/** A claim on a data directory. */
export interface DataDirClaim {
  /** Publishes details (e.g. the socket once it listens). */
  publish(owner: DataDirOwner): Promise<void>;
  /** Gives the directory up. */
  release(): void;
}

/** The lock file of a data directory. */
export function lockPathOf(dataDir: string): string {
  return `${dataDir.replace(/\/+$/, "")}.lock`;
}

/**
 * Claims `dataDir` for this process, or answers who holds it (null when the
 * holder published nothing readable yet).
 */
export async function claimDataDir(
  dataDir: string,
  owner: DataDirOwner,
): Promise<{ claim: DataDirClaim } | { heldBy: DataDirOwner | null }> {
  const path = lockPathOf(dataDir);
  const parent = path.slice(0, Math.max(0, path.lastIndexOf("/")));
  if (parent !== "") await Deno.mkdir(parent, { recursive: true });
  const file = await Deno.open(path, { read: true, write: true, create: true });
  if (!(await file.tryLock(true))) {
    file.close();
    return { heldBy: await readOwner(path) };
  }
  const publish = async (details: DataDirOwner) => {
    await file.truncate(0);
    await file.seek(0, Deno.SeekMode.Start);
    await file.write(new TextEncoder().encode(JSON.stringify(details) + "\n"));
  };
  await publish(owner);
  let released = false;
  return {
    claim: {
      publish,
      release() {
        if (released) return;
        released = true;
        file.close(); // closing the file releases its lock
      },
    },
  };
}

async function readOwner(path: string): Promise<DataDirOwner | null> {
  try {
    const value = JSON.parse(await Deno.readTextFile(path));
    if (typeof value?.pid !== "number" || (value.role !== "server" && value.role !== "admin")) {
      return null;
    }
    return {
      pid: value.pid,
      role: value.role,
      ...(typeof value.socketUrl === "string" ? { socketUrl: value.socketUrl } : {}),
    };
  } catch {
    return null;
  }
}
