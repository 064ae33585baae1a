import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { haproxyConfig } from "../haproxy";

describe("the HAProxy configuration", () => {
  it("fills the template into a configuration HAProxy accepts, one server line per instance", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "shelf-haproxy-config-"));
    try {
      const config = await haproxyConfig({
        bind: "127.0.0.1",
        webPort: 18080,
        designPort: 18081,
        runtimeSocket: path.join(dir, "admin.sock"),
        instances: [
          { name: "web-1", app: "web", port: 13001 },
          { name: "web-2", app: "web", port: 13002 },
          { name: "design-1", app: "design", port: 13101 },
        ],
      });
      expect(config).not.toMatch(/\{\{/);
      const backend = (name: string) => config.slice(config.indexOf(`\nbackend ${name}\n`)).split(/\n\n/)[0] as string;
      expect(backend("web")).toContain("server web-1 127.0.0.1:13001 check");
      expect(backend("web")).toContain("server web-2 127.0.0.1:13002 check");
      expect(backend("web")).not.toContain("design-1");
      expect(backend("design")).toContain("server design-1 127.0.0.1:13101 check");
      // Layer-7 retries (an instance that died mid-answer) only for requests that are safe to send twice.
      for (const name of ["web", "design"]) {
        expect(backend(name)).toContain("http-request disable-l7-retry if !METH_GET !METH_HEAD");
        expect(backend(name)).toContain("balance roundrobin");
      }
      expect(config).toContain("http-check send meth GET uri /readyz");
      expect(config).toContain("option forwardfor");
      const file = path.join(dir, "haproxy.cfg");
      await fs.writeFile(file, config);
      await promisify(execFile)("haproxy", ["-c", "-q", "-f", file]);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
