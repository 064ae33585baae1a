import { jwks } from "@shelf/server/signing/jws";
import { z } from "zod";
import { revokeDevice } from "../../client-policy";
import { exampleSeat } from "../../examples/seats";
import { accountProcedure, publicProcedure } from "../../procedures";
import { router } from "../../trpc";
import { ClientConfigData, JwksData } from "./schemas";
import { clientConfig } from "./service";

export const clientConfigRouter = router({
  get: accountProcedure
    .meta({
      ability: "any-key",
      openapi: {
        method: "GET",
        path: "/api/client-config",
        tags: ["client_config"],
        summary: "The signed client policy",
        description:
          "Minimum client version, how often to check licenses online (`recheck_hours`) and how long to trust a certificate offline (`ttl_days`), and the devices of this account cut off from a product. `signature` is Ed25519 (base64url) over the RFC 8785 canonical JSON of every other field; verify it with the key `kid` names in the JWKS at `/.well-known/jwks.json`. `version` grows with every change.",
      },
      example: {
        listed: async (context) => {
          const device = await exampleSeat(context);
          await revokeDevice(context.db, context.productId, device);
          return [{ list: "revoked", row: { product_id: context.productId, device_id: device } }];
        },
      },
    })
    .input(z.object({}))
    .output(ClientConfigData)
    .query(({ ctx }) => {
      // Signed now (`signed_at`): no two answers are alike, so none is stored or revalidated.
      ctx.res.headers["cache-control"] = "no-store";
      return clientConfig(ctx.db, ctx.delivery.keyring, ctx.caller);
    }),

  jwks: publicProcedure
    .meta({
      ability: "public",
      openapi: {
        method: "GET",
        path: "/.well-known/jwks.json",
        tags: ["client_config"],
        summary: "Public keys of license certificates and the client policy",
        description:
          "A JWK Set (RFC 7517) of every Ed25519 signing key, retired keys included so that what they signed still verifies; pick the key by the `kid` of a certificate's header or of the policy.",
      },
    })
    .input(z.object({}))
    .output(JwksData)
    .query(({ ctx }) => {
      ctx.res.headers["cache-control"] = "public, max-age=300";
      return jwks(ctx.delivery.keyring);
    }),
});
