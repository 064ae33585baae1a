import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

/*
 * HAProxy as the cluster uses it: its configuration, made from deploy/haproxy.cfg.template, and what its runtime API
 * (the stats socket) tells about the servers behind it.
 */

const TEMPLATE = path.join(path.dirname(fileURLToPath(import.meta.url)), "haproxy.cfg.template");

/** The HAProxy configuration for these instances: the template with its fields filled. */
export async function haproxyConfig(options: {
  bind: string;
  webPort: number;
  designPort: number;
  runtimeSocket: string;
  instances: { name: string; app: "web" | "design"; port: number }[];
}): Promise<string> {
  const servers = (app: "web" | "design") =>
    options.instances
      .filter((instance) => instance.app === app)
      .map((instance) => `    server ${instance.name} 127.0.0.1:${instance.port} check`)
      .join("\n");
  const fields: Record<string, string> = {
    BIND: options.bind,
    WEB_PORT: String(options.webPort),
    DESIGN_PORT: String(options.designPort),
    RUNTIME_SOCKET: options.runtimeSocket,
    WEB_SERVERS: servers("web"),
    DESIGN_SERVERS: servers("design"),
  };
  const template = await fs.readFile(TEMPLATE, "utf8");
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = fields[name];
    if (value === undefined) throw new Error(`haproxy.cfg.template names an unknown field {{${name}}}`);
    return value;
  });
}

/** One command to HAProxy's runtime API (its stats socket), and the whole answer. */
function runtimeCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const connection = net.connect(socket);
    let answer = "";
    connection.on("data", (chunk) => {
      answer += chunk;
    });
    connection.once("error", reject);
    connection.once("end", () => resolve(answer));
    connection.write(`${command}\n`);
  });
}

/** Every `server` line's operational state, from the runtime API's `show servers state`. */
export async function serverStates(socket: string): Promise<Map<string, number>> {
  const answer = await runtimeCommand(socket, "show servers state");
  const states = new Map<string, number>();
  for (const line of answer.split("\n")) {
    // be_id be_name srv_id srv_name srv_addr srv_op_state ...
    const fields = line.trim().split(/\s+/);
    if (fields.length > 6 && /^\d+$/.test(fields[0] as string)) {
      states.set(`${fields[1]}/${fields[3]}`, Number(fields[5]));
    }
  }
  return states;
}

/** Every `server` line's responses so far (all status classes), from the runtime API's `show stat`. */
export async function serverResponses(socket: string): Promise<Map<string, number>> {
  const [header, ...rows] = (await runtimeCommand(socket, "show stat")).trim().split("\n");
  const columns = (header ?? "").replace(/^# /, "").split(",");
  const counters = ["hrsp_1xx", "hrsp_2xx", "hrsp_3xx", "hrsp_4xx", "hrsp_5xx", "hrsp_other"].map((name) =>
    columns.indexOf(name),
  );
  const responses = new Map<string, number>();
  for (const row of rows) {
    const fields = row.split(",");
    if (fields[1] === "FRONTEND" || fields[1] === "BACKEND") continue;
    responses.set(
      `${fields[0]}/${fields[1]}`,
      counters.reduce((sum, index) => sum + Number(fields[index] || 0), 0),
    );
  }
  return responses;
}
