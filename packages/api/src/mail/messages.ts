import type { AnswerLanguage } from "../language";
import type { Mail } from "./mailer";

/** Text for an HTML body: nothing a name or an address holds can become markup. */
export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char] as string,
  );
}

type Words = {
  subject: string;
  greeting: string;
  paragraphs: string[];
  action: string;
  ignore: string;
};

/** A mail of a few paragraphs and one link, as plain text and as HTML (inline-free, so any client shows it). */
function compose(to: string, language: AnswerLanguage, words: Words, link: string): Mail {
  const text = [words.greeting, "", ...words.paragraphs.flatMap((p) => [p, ""]), link, "", words.ignore, ""].join("\n");
  const html = `<!doctype html>
<html lang="${language}"><head><meta charset="utf-8"><title>${escapeHtml(words.subject)}</title></head>
<body>
<p>${escapeHtml(words.greeting)}</p>
${words.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join("\n")}
<p><a href="${escapeHtml(link)}">${escapeHtml(words.action)}</a></p>
<p>${escapeHtml(link)}</p>
<p>${escapeHtml(words.ignore)}</p>
</body></html>
`;
  return { to, subject: words.subject, text, html };
}

/** The "forgot password" mail: a link that sets a new password, once, within `minutes`. */
export function passwordResetMail(input: {
  to: string;
  name: string | null;
  language: AnswerLanguage;
  link: string;
  minutes: number;
}): Mail {
  const { to, name, language, link, minutes } = input;
  const words: Words =
    language === "ko"
      ? {
          subject: "Shelf 비밀번호 재설정",
          greeting: name ? `${name}님, 안녕하세요.` : "안녕하세요.",
          paragraphs: [
            `이 주소(${to})의 Shelf 계정 비밀번호를 재설정해 달라는 요청을 받았습니다.`,
            `아래 링크에서 새 비밀번호를 정하세요. 링크는 ${minutes}분 동안 한 번만 쓸 수 있으며, 비밀번호를 바꾸면 모든 기기에서 로그아웃됩니다.`,
          ],
          action: "새 비밀번호 정하기",
          ignore: "요청하지 않았다면 이 메일을 무시하세요. 비밀번호는 바뀌지 않습니다.",
        }
      : {
          subject: "Reset your Shelf password",
          greeting: name ? `Hello ${name},` : "Hello,",
          paragraphs: [
            `Someone asked to reset the password of the Shelf account of ${to}.`,
            `Choose a new password at the link below. It works once, for ${minutes} minutes, and setting a new password signs the account out everywhere.`,
          ],
          action: "Choose a new password",
          ignore: "If you did not ask for this, ignore this mail: your password stays as it is.",
        };
  return compose(to, language, words, link);
}
