import { DOMParser, type Element } from "@xmldom/xmldom";

export const SPARKLE_NAMESPACE_URI = "http://www.andymatuschak.org/xml-namespaces/sparkle";
export const XML_NAMESPACE_URI = "http://www.w3.org/XML/1998/namespace";

/** An appcast parsed by a real XML parser: its items, read by namespace URI as Sparkle reads them. */
export function parseAppcast(xml: string) {
  const errors: string[] = [];
  const document = new DOMParser({
    onError: (level, message) => void errors.push(`${level}: ${message}`),
  }).parseFromString(xml, "text/xml");
  if (errors.length > 0) throw new Error(`The appcast is not well-formed XML: ${errors.join("; ")}`);
  const root = document.documentElement as Element;
  const channels = root.getElementsByTagName("channel");
  if (root.localName !== "rss" || root.getAttribute("version") !== "2.0" || channels.length !== 1) {
    throw new Error("The appcast is not RSS 2.0 with one channel.");
  }
  return Array.from((channels[0] as Element).getElementsByTagName("item"));
}

export const sparkleElements = (item: Element, name: string) =>
  Array.from(item.getElementsByTagNameNS(SPARKLE_NAMESPACE_URI, name));
export const sparkleText = (item: Element, name: string) => sparkleElements(item, name)[0]?.textContent ?? null;

/** A signed feed's document and its trailing `sparkle-signatures` block, split where Sparkle splits them. */
export function splitSignedFeed(body: Buffer) {
  const at = body.lastIndexOf(Buffer.from("<!-- sparkle-signatures:"));
  if (at <= 0) throw new Error("The appcast carries no sparkle-signatures block.");
  const block = body.subarray(at).toString("utf8");
  const match = /^<!-- sparkle-signatures:\nedSignature: ([A-Za-z0-9+/=]+)\nlength: (\d+)\n-->\n?$/.exec(block);
  if (!match) throw new Error(`The signature block is malformed: ${block}`);
  return { document: body.subarray(0, at), signature: match[1] as string, length: Number(match[2]) };
}
