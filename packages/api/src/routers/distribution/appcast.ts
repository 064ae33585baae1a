import type { ReleaseChannel } from "@shelf/db/enums";
import type { SigningKeyring } from "@shelf/server/signing/keyring";

export const SPARKLE_NAMESPACE = "http://www.andymatuschak.org/xml-namespaces/sparkle";

export type AppcastItem = {
  version: string;
  /** CFBundleVersion of the build (`sparkle:version`); the version when there is none. */
  build: string | null;
  channel: ReleaseChannel;
  publishedAt: Date;
  notesEn: string | null;
  notesKo: string | null;
  minimumSystemVersion: string | null;
  platform: string | null;
  critical: boolean;
  url: string;
  length: number;
  type: string;
  edSignature: string | null;
};

export type Appcast = { title: string; link: string; language: string; items: AppcastItem[] };

/** Characters XML 1.0 cannot carry at all, even escaped: dropped from text. */
const NOT_XML = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

function xmlText(text: string): string {
  return text
    .replace(NOT_XML, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

/** Release notes are plain text; Sparkle shows a description as HTML, so the text is escaped into paragraphs. */
function notesHtml(notes: string): string {
  return notes
    .trim()
    .split(/\n\s*\n/)
    .map((paragraph) => `<p>${xmlText(paragraph).replace(/\n/g, "<br>")}</p>`)
    .join("");
}

/** `sparkle:hardwareRequirements`: Sparkle knows `arm64` (an Apple silicon build). */
function hardwareRequirements(platform: string | null): string | null {
  return platform?.endsWith("-arm64") ? "arm64" : null;
}

function item(entry: AppcastItem): string {
  const lines = [
    `<title>${xmlText(`Version ${entry.version}`)}</title>`,
    `<pubDate>${entry.publishedAt.toUTCString().replace("GMT", "+0000")}</pubDate>`,
    `<sparkle:version>${xmlText(entry.build ?? entry.version)}</sparkle:version>`,
    `<sparkle:shortVersionString>${xmlText(entry.version)}</sparkle:shortVersionString>`,
  ];
  if (entry.channel !== "stable") lines.push(`<sparkle:channel>${entry.channel}</sparkle:channel>`);
  if (entry.minimumSystemVersion) {
    lines.push(`<sparkle:minimumSystemVersion>${xmlText(entry.minimumSystemVersion)}</sparkle:minimumSystemVersion>`);
  }
  const hardware = hardwareRequirements(entry.platform);
  if (hardware) lines.push(`<sparkle:hardwareRequirements>${hardware}</sparkle:hardwareRequirements>`);
  if (entry.critical) lines.push("<sparkle:criticalUpdate></sparkle:criticalUpdate>");
  if (entry.notesEn) lines.push(`<description xml:lang="en">${xmlText(notesHtml(entry.notesEn))}</description>`);
  if (entry.notesKo) lines.push(`<description xml:lang="ko">${xmlText(notesHtml(entry.notesKo))}</description>`);
  const signature = entry.edSignature ? ` sparkle:edSignature="${xmlText(entry.edSignature)}"` : "";
  lines.push(
    `<enclosure url="${xmlText(entry.url)}" length="${entry.length}" type="${xmlText(entry.type)}"${signature}/>`,
  );
  return `    <item>\n${lines.map((line) => `      ${line}`).join("\n")}\n    </item>\n`;
}

/** The feed document itself, before its signature. */
export function appcastXml(feed: Appcast): string {
  return [
    '<?xml version="1.0" encoding="utf-8"?>\n',
    `<rss version="2.0" xmlns:sparkle="${SPARKLE_NAMESPACE}">\n`,
    "  <channel>\n",
    `    <title>${xmlText(feed.title)}</title>\n`,
    `    <link>${xmlText(feed.link)}</link>\n`,
    `    <description>${xmlText(`Updates of ${feed.title}`)}</description>\n`,
    `    <language>${xmlText(feed.language)}</language>\n`,
    ...feed.items.map(item),
    "  </channel>\n",
    "</rss>\n",
  ].join("");
}

/**
 * The feed signed as Sparkle 2.9 verifies signed feeds: Ed25519 over every byte of the document, then a trailing
 * comment carrying the signature and the signed length.
 */
export function signedAppcast(feed: Appcast, keyring: SigningKeyring): string {
  const document = appcastXml(feed);
  const bytes = Buffer.from(document, "utf8");
  const { signature } = keyring.sign("sparkle", bytes);
  return `${document}<!-- sparkle-signatures:\nedSignature: ${signature.toString("base64")}\nlength: ${bytes.length}\n-->\n`;
}
