import type { MetadataDocuments } from "./clients";

/** Where the authorization server and the resource it protects live, and how it names itself. */
export type OAuthSettings = {
  /** The authorization server's URL (`SHELF_AUTH_URL`): the `issuer` of its metadata and the `iss` of its answers. */
  issuer: string;
  /** The one protected resource: the account MCP, `{base_url}/api/mcp`. */
  resource: string;
  /** The brand prefix of tokens (`SHELF_KEY_PREFIX`). */
  brand: string;
  /**
   * A secret every instance shares and no database holds (the web app's `SHELF_AUTH_SECRET`): rotated refresh
   * tokens' successors are derived with a key drawn from it, so a copy of the database cannot work them out.
   */
  secret: string;
  /** Client ID metadata documents, when this server accepts them. */
  documents?: MetadataDocuments;
};
