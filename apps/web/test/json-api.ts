/**
 * Calls the running server's REST API as a client program does: an optional bearer key, a JSON body, the answer's
 * status, headers and parsed body (null when empty).
 */
export function jsonApi(baseUrl: () => string) {
  return async (pathname: string, key: string | null, init: { method?: string; body?: unknown } = {}) => {
    const response = await fetch(`${baseUrl()}${pathname}`, {
      method: init.method ?? "GET",
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await response.text();
    // biome-ignore lint/suspicious/noExplicitAny: bodies are asserted field by field
    return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : null) as any };
  };
}
