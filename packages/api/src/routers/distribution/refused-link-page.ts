import type { TextOutput } from "@shelf/server/plain";
import { DomainError } from "../../errors";
import type { AnswerLanguage } from "../../language";
import { escapeHtml } from "../../mail/messages";

const WORDS = {
  en: {
    download_link_expired: {
      title: "This download link has expired",
      body: "Download links work for a few minutes after the page that gave them. The product's page makes a fresh one each time you press Download.",
    },
    download_link_invalid: {
      title: "This download link does not work",
      body: "It may have been cut short or changed when it was copied. The product's page makes a fresh one each time you press Download.",
    },
    product: "Back to the product",
    library: "Back to your library",
  },
  ko: {
    download_link_expired: {
      title: "다운로드 링크가 만료되었습니다",
      body: "다운로드 링크는 페이지에서 받은 뒤 몇 분 동안만 쓸 수 있습니다. 제품 페이지에서 다운로드를 누를 때마다 새 링크를 만듭니다.",
    },
    download_link_invalid: {
      title: "이 다운로드 링크는 쓸 수 없습니다",
      body: "복사하면서 잘렸거나 바뀌었을 수 있습니다. 제품 페이지에서 다운로드를 누를 때마다 새 링크를 만듭니다.",
    },
    product: "제품으로 돌아가기",
    library: "보관함으로 돌아가기",
  },
} as const;

/** A refusal a browser gets as a page instead of the contract's JSON: the link's own two. */
export function refusedLinkCode(error: unknown): "download_link_expired" | "download_link_invalid" | null {
  if (!(error instanceof DomainError)) return null;
  return error.code === "download_link_expired" || error.code === "download_link_invalid" ? error.code : null;
}

/**
 * The page a person gets who opens a refused download link in a browser (a bookmarked or pasted link, a tab left
 * open): what happened, in their language, and the way back to where a fresh link is made. Plain HTML without
 * script or style, so that it needs nothing the edge's headers forbid.
 */
export function refusedLinkPage(
  language: AnswerLanguage,
  code: "download_link_expired" | "download_link_invalid",
  back: { url: string; product: boolean },
): TextOutput {
  const words = WORDS[language];
  const { title, body } = words[code];
  const label = back.product ? words.product : words.library;
  return {
    kind: "text",
    contentType: "text/html; charset=utf-8",
    cacheControl: "no-store",
    body: `<!doctype html>
<html lang="${language}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head>
<body><main><h1>${title}</h1><p>${body}</p><p><a href="${escapeHtml(back.url)}">${label}</a></p></main></body>
</html>
`,
  };
}
