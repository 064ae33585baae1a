import type { Caller, Credential, SessionCaller } from "../auth/caller";
import { DomainError } from "../errors";
import { baseProcedure, type Meta } from "../trpc";
import { authorize } from "./authorize";
import { callerMiddleware } from "./caller";

/** Who may call an open route: anyone for `public`, and a key that is sent is still checked for `anonymous`. */
export function publicCaller(meta: Meta | undefined, credential: Credential): Caller | null {
  if (meta?.ability !== "public" && !meta?.anonymous) {
    throw new DomainError("missing_api_key_ability", "This endpoint is not public.");
  }
  return authorize(meta, credential);
}

/** Open to callers without a key: `public` endpoints, and those that take a key when one is sent (`anonymous`). */
export const publicProcedure = baseProcedure.use(callerMiddleware(publicCaller));

/** For the account API and the account MCP: a caller with the ability the route declares (`meta.ability`). */
export const accountProcedure = baseProcedure.use(
  callerMiddleware((meta, credential): Caller => {
    const caller = authorize(meta, credential);
    if (!caller) throw new DomainError("missing_api_key");
    return caller;
  }),
);

/** For the account pages: only a signed-in person (`ability: "signed-in"`), never a key or an OAuth token. */
export const sessionProcedure = baseProcedure.use(
  callerMiddleware((meta, credential): SessionCaller => {
    if (meta?.ability !== "signed-in") {
      throw new DomainError("missing_api_key_ability", "This procedure does not declare the signed-in rule.");
    }
    const caller = authorize(meta, credential);
    if (caller?.type !== "session") throw new DomainError("missing_api_key");
    return caller;
  }),
);
