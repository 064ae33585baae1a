/**
 * Names for what the API identifies by a lowercase slug (platforms, install targets, card brands), as people write
 * them. The same in both languages: they are product and brand names. A slug not listed is shown as it comes.
 */
const NAMES: Record<string, string> = {
  macos: "macOS",
  windows: "Windows",
  linux: "Linux",
  ios: "iOS",
  android: "Android",
  codex: "Codex",
  "claude-code": "Claude Code",
  vscode: "VS Code",
  cursor: "Cursor",
  visa: "Visa",
  mastercard: "Mastercard",
  amex: "American Express",
  discover: "Discover",
  jcb: "JCB",
  unionpay: "UnionPay",
  diners: "Diners Club",
};

export function shownName(slug: string): string {
  return NAMES[slug.toLowerCase()] ?? slug;
}
