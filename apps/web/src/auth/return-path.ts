/**
 * A path of this site to return to after signing in, or null: only `/...` paths, never `//host` or `/\\host` (which
 * browsers read as another origin), never a control character.
 */
export function safeReturnPath(path: string | null | undefined): string | null {
  if (!path || path.length > 2000) return null;
  if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return null;
  return path;
}
