import { accounts } from "@shelf/api";
import { flag, optionalString, requiredString, UsageError } from "../args";
import type { Command } from "../command";

export const accountCreate: Command = {
  name: "account:create",
  summary: "Create an account",
  synopsis: "--email E [--name N] [--password P | --password-stdin]",
  details: ["--password-stdin reads the password from standard input, keeping it out of the process list."],
  options: {
    email: { type: "string" },
    name: { type: "string" },
    password: { type: "string" },
    "password-stdin": { type: "boolean" },
  },
  prepare(values) {
    const email = requiredString(values, "email");
    const name = optionalString(values, "name");
    const password = optionalString(values, "password");
    const passwordFromStdin = flag(values, "password-stdin");
    if (password !== undefined && passwordFromStdin) {
      throw new UsageError("Use either --password or --password-stdin, not both.");
    }
    return async ({ db, readStdin }) => {
      const secret = passwordFromStdin ? (await readStdin()).replace(/\r?\n$/, "") : password;
      const account = await accounts.createAccount(db, { email, name, password: secret });
      const who = account.name ? `${account.email} (${account.name})` : account.email;
      return {
        json: account,
        text: `Created account ${account.id}: ${who}${account.has_password ? ", password set" : ""}.`,
      };
    };
  },
};
