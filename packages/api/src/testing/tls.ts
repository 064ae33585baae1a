import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import https from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

export type SelfSigned = { key: string; cert: string; certFile: string };

/** A self-signed certificate for localhost and 127.0.0.1, made by openssl, valid a day; its PEM also in a file. */
export async function selfSignedCertificate(): Promise<SelfSigned> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-tls-"));
  const keyFile = path.join(dir, "key.pem");
  const certFile = path.join(dir, "cert.pem");
  await promisify(execFile)("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-keyout",
    keyFile,
    "-out",
    certFile,
    "-days",
    "1",
    "-subj",
    "/CN=localhost",
    "-addext",
    "subjectAltName=DNS:localhost,IP:127.0.0.1",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
  ]);
  return { key: await fs.readFile(keyFile, "utf8"), cert: await fs.readFile(certFile, "utf8"), certFile };
}

export type Answer = { status?: number; headers?: Record<string, string>; body?: string; delayMs?: number };

/**
 * A local https server whose answers a test sets per path; it counts the requests each path received. Listens on
 * 127.0.0.1 only; its URL names localhost.
 */
export async function tlsServer(certificate: SelfSigned) {
  const answers = new Map<string, Answer>();
  const hits = new Map<string, number>();
  const server = https.createServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
    const pathname = (req.url ?? "/").split("?")[0] as string;
    hits.set(pathname, (hits.get(pathname) ?? 0) + 1);
    const answer = answers.get(pathname) ?? { status: 404, body: "not found" };
    setTimeout(() => {
      res.writeHead(answer.status ?? 200, { "content-type": "application/json", ...answer.headers });
      res.end(answer.body ?? "");
    }, answer.delayMs ?? 0);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://localhost:${port}`,
    port,
    answer: (pathname: string, answer: Answer) => answers.set(pathname, answer),
    hits: (pathname: string) => hits.get(pathname) ?? 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
