import type { Mail } from "@shelf/server/mail/mailer";
import type { AnswerLanguage } from "../language";

/** Text for an HTML body: nothing a name or an address holds can become markup. */
export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char] as string,
  );
}

export type Words = {
  subject: string;
  greeting: string;
  paragraphs: string[];
  /** The link's words; a mail without a link (a notice) has none. */
  action?: string;
  ignore: string;
};

/** A mail of a few paragraphs and at most one link, as plain text and as HTML (inline-free, so any client shows it). */
export function compose(to: string, language: AnswerLanguage, words: Words, link?: string): Mail {
  const text = [
    words.greeting,
    "",
    ...words.paragraphs.flatMap((p) => [p, ""]),
    ...(link ? [link, ""] : []),
    words.ignore,
    "",
  ].join("\n");
  const linkHtml = link
    ? `<p><a href="${escapeHtml(link)}">${escapeHtml(words.action ?? link)}</a></p>\n<p>${escapeHtml(link)}</p>\n`
    : "";
  const html = `<!doctype html>
<html lang="${language}"><head><meta charset="utf-8"><title>${escapeHtml(words.subject)}</title></head>
<body>
<p>${escapeHtml(words.greeting)}</p>
${words.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join("\n")}
${linkHtml}<p>${escapeHtml(words.ignore)}</p>
</body></html>
`;
  return { to, subject: words.subject, text, html };
}

export function greeting(language: AnswerLanguage, name: string | null): string {
  if (language === "ko") return name ? `${name}님, 안녕하세요.` : "안녕하세요.";
  return name ? `Hello ${name},` : "Hello,";
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

/** The sign-up mail (and "send again"): a link that verifies the account's address, once, within `hours`. */
export function emailVerificationMail(input: {
  to: string;
  name: string | null;
  language: AnswerLanguage;
  link: string;
  hours: number;
}): Mail {
  const { to, name, language, link, hours } = input;
  const words: Words =
    language === "ko"
      ? {
          subject: "Shelf 이메일 주소 확인",
          greeting: greeting(language, name),
          paragraphs: [
            `이 주소(${to})로 Shelf 계정이 만들어졌습니다.`,
            `아래 링크를 열어 이 주소가 본인의 것임을 확인해 주세요. 링크는 ${hours}시간 동안 한 번만 쓸 수 있습니다.`,
          ],
          action: "이메일 주소 확인하기",
          ignore: "계정을 만들지 않았다면 이 메일을 무시하세요.",
        }
      : {
          subject: "Verify your Shelf email address",
          greeting: greeting(language, name),
          paragraphs: [
            `A Shelf account was created with this address (${to}).`,
            `Open the link below to confirm the address is yours. It works once, for ${hours} hours.`,
          ],
          action: "Verify my email address",
          ignore: "If you did not create an account, ignore this mail.",
        };
  return compose(to, language, words, link);
}

/** To the NEW address of a change of email: the link that makes it the account's, once, within `minutes`. */
export function emailChangeMail(input: {
  to: string;
  from: string;
  name: string | null;
  language: AnswerLanguage;
  link: string;
  minutes: number;
}): Mail {
  const { to, from, name, language, link, minutes } = input;
  const words: Words =
    language === "ko"
      ? {
          subject: "Shelf 새 이메일 주소 확인",
          greeting: greeting(language, name),
          paragraphs: [
            `Shelf 계정(${from})의 이메일 주소를 이 주소(${to})로 바꾸려는 요청을 받았습니다.`,
            `아래 링크를 열면 주소가 바뀝니다. 링크는 ${minutes}분 동안 한 번만 쓸 수 있습니다.`,
          ],
          action: "새 주소로 바꾸기",
          ignore: "요청하지 않았다면 이 메일을 무시하세요. 주소는 바뀌지 않습니다.",
        }
      : {
          subject: "Confirm your new Shelf email address",
          greeting: greeting(language, name),
          paragraphs: [
            `Someone asked to change the email of the Shelf account of ${from} to this address (${to}).`,
            `Open the link below to make the change. It works once, for ${minutes} minutes.`,
          ],
          action: "Use this address",
          ignore: "If you did not ask for this, ignore this mail: the address stays as it is.",
        };
  return compose(to, language, words, link);
}

/** To the OLD address once a change of email took effect: a notice, no link. */
export function emailChangedNoticeMail(input: {
  to: string;
  newEmail: string;
  name: string | null;
  language: AnswerLanguage;
}): Mail {
  const { to, newEmail, name, language } = input;
  const words: Words =
    language === "ko"
      ? {
          subject: "Shelf 계정의 이메일 주소가 바뀌었습니다",
          greeting: greeting(language, name),
          paragraphs: [
            `Shelf 계정의 이메일 주소가 ${to}에서 ${newEmail}(으)로 바뀌었습니다. 이제 이 주소로는 로그인하거나 메일을 받을 수 없습니다.`,
          ],
          ignore: "직접 바꾼 것이 아니라면 곧바로 판매자 고객 지원에 알려 주세요.",
        }
      : {
          subject: "The email of your Shelf account was changed",
          greeting: greeting(language, name),
          paragraphs: [
            `The email of your Shelf account was changed from ${to} to ${newEmail}. This address no longer signs in or receives the account's mail.`,
          ],
          ignore: "If you did not make this change, tell the seller's support at once.",
        };
  return compose(to, language, words);
}
