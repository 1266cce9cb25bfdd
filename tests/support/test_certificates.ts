/**
 * A throwaway certificate authority and a server certificate for made-up
 * names, generated with the system's `openssl` (Debian's openssl package,
 * present wherever ca-certificates is) in a temporary directory that is
 * removed afterwards. Nothing is written to the repository.
 */

/** PEM texts for a TLS test. */
export interface TestCertificates {
  /** The CA certificate to pass as `caCerts`. */
  caCert: string;
  /** The server certificate, signed by the CA, for `names`. */
  cert: string;
  /** The server's private key. */
  key: string;
}

/** openssl arguments for a new P-256 key, unencrypted. */
const NEW_EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

/** Generates a CA and a server certificate for the DNS names given (valid for two days). */
export async function generateTestCertificates(names: string[]): Promise<TestCertificates> {
  const dir = await Deno.makeTempDir({ prefix: "scanner-tls-" });
  const file = (name: string) => `${dir}/${name}`;
  try {
    await openssl([
      "req",
      "-x509",
      ...NEW_EC_KEY,
      "-keyout",
      file("ca.key"),
      "-out",
      file("ca.pem"),
      "-days",
      "2",
      "-subj",
      "/CN=Scanner Test CA",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    ]);
    await openssl([
      "req",
      ...NEW_EC_KEY,
      "-keyout",
      file("server.key"),
      "-out",
      file("server.csr"),
      "-subj",
      `/CN=${names[0]}`,
    ]);
    await Deno.writeTextFile(
      file("server.ext"),
      [
        `subjectAltName=${names.map((name) => `DNS:${name}`).join(",")}`,
        "basicConstraints=CA:FALSE",
        "keyUsage=critical,digitalSignature",
        "extendedKeyUsage=serverAuth",
      ].join("\n") + "\n",
    );
    await openssl([
      "x509",
      "-req",
      "-in",
      file("server.csr"),
      "-CA",
      file("ca.pem"),
      "-CAkey",
      file("ca.key"),
      "-CAcreateserial",
      "-out",
      file("server.pem"),
      "-days",
      "2",
      "-extfile",
      file("server.ext"),
    ]);
    return {
      caCert: await Deno.readTextFile(file("ca.pem")),
      cert: await Deno.readTextFile(file("server.pem")),
      key: await Deno.readTextFile(file("server.key")),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function openssl(args: string[]): Promise<void> {
  const result = await new Deno.Command("openssl", { args, stdout: "null", stderr: "piped" })
    .output();
  if (!result.success) {
    throw new Error(`openssl ${args[0]} failed: ${new TextDecoder().decode(result.stderr)}`);
  }
}
