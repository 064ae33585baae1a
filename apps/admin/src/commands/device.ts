import { accounts, deviceAdmin } from "@shelf/api";
import { requiredInteger, requiredString } from "../args";
import type { Command } from "../command";

export const deviceList: Command = {
  name: "device:list",
  summary: "List an account's devices and the products each holds a seat on",
  synopsis: "--email E",
  options: { email: { type: "string" } },
  prepare(values) {
    const email = requiredString(values, "email");
    return async ({ db }) => {
      const account = await accounts.requireAccountByEmail(db, email);
      const devices = await deviceAdmin.listDevices(db, account.id);
      const lines = devices.map((device) => {
        const seats =
          device.products.map((seat) => `${seat.product_name} (${seat.product_id})`).join(", ") || "no seats";
        return `  ${device.id}  ${device.device_id}${device.name ? ` "${device.name}"` : ""}  last seen ${device.last_seen_at ?? "never"}  ${seats}`;
      });
      return {
        json: { account_id: account.id, devices },
        text: [`${devices.length} device(s) of ${account.email}:`, ...lines].join("\n"),
      };
    };
  },
};

export const deviceDeactivate: Command = {
  name: "device:deactivate",
  summary: "Free every seat a device of an account holds (by the id device:list prints)",
  synopsis: "--email E --id ID",
  details: [
    "The device takes a seat again at its next license check if one is free; policy:revoke keeps it out.",
    "Another account's device is not found: the account is named, as device:list names it.",
  ],
  options: { email: { type: "string" }, id: { type: "string" } },
  prepare(values) {
    const email = requiredString(values, "email");
    const id = requiredInteger(values, "id", { min: 1 });
    return async ({ db }) => {
      const account = await accounts.requireAccountByEmail(db, email);
      const result = await deviceAdmin.deactivateDevice(db, account.id, id);
      return {
        json: result,
        text: `Deactivated device ${result.id} (${result.device_id}): ${result.released_product_ids.length} seat(s) released${result.released_product_ids.length ? ` (products ${result.released_product_ids.join(", ")})` : ""}.`,
      };
    };
  },
};
