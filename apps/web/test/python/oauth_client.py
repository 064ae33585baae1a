"""The Python MCP SDK's OAuth client against the account MCP (run by apps/web/test/oauth.test.ts).

OAuthClientProvider does what a Python MCP host does: discovery from the 401, dynamic registration, the
authorization code flow with PKCE, the token exchange, then the calls. The person's browser is the test: the
authorization URL is written to stdout as `AUTHORIZE <url>`, and the address the server sent the browser back to
is read from stdin as `CALLBACK <url>`. The outcome is the last line, `RESULT <json>`.
"""

import asyncio
import json
import sys
from urllib.parse import parse_qs, urlparse

import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

REDIRECT_URI = "http://127.0.0.1:45931/callback"


class MemoryStorage:
    """The client's registration and tokens, for this run only."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


callback_url: list[str] = []


async def redirect_handler(authorization_url: str) -> None:
    print(f"AUTHORIZE {authorization_url}", flush=True)
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    if not line.startswith("CALLBACK "):
        raise RuntimeError(f"expected CALLBACK <url>, got {line!r}")
    callback_url.append(line.removeprefix("CALLBACK ").strip())


async def callback_handler() -> AuthorizationCodeResult:
    query = parse_qs(urlparse(callback_url[-1]).query)
    if "error" in query:
        raise RuntimeError(f"authorization refused: {query['error'][0]}")
    return AuthorizationCodeResult(
        code=query["code"][0],
        state=query.get("state", [None])[0],
        iss=query.get("iss", [None])[0],
    )


async def main(server_url: str) -> None:
    storage = MemoryStorage()
    provider = OAuthClientProvider(
        server_url=server_url,
        client_metadata=OAuthClientMetadata(
            client_name="Python MCP SDK test",
            redirect_uris=[REDIRECT_URI],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )
    async with httpx2.AsyncClient(auth=provider, timeout=30) as http:
        async with Client(streamable_http_client(server_url, http_client=http), mode="legacy") as client:
            tools = await client.list_tools()
            library = await client.call_tool("library_get", {})
            unknown = None
            try:
                await client.call_tool("no_such_tool", {})
            except Exception as error:  # the server's JSON-RPC error -32602, raised by the SDK
                unknown = str(error)
    result = {
        "client_id": storage.client_info.client_id if storage.client_info else None,
        "auth_method": storage.client_info.token_endpoint_auth_method if storage.client_info else None,
        "token_type": storage.tokens.token_type if storage.tokens else None,
        "scope": storage.tokens.scope if storage.tokens else None,
        "has_refresh_token": bool(storage.tokens and storage.tokens.refresh_token),
        "tools": sorted(tool.name for tool in tools.tools),
        "library_is_error": bool(library.is_error),
        "library": json.loads(library.content[0].text) if library.content else None,
        "unknown_tool_error": unknown,
    }
    print(f"RESULT {json.dumps(result)}", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
