import { fileURLToPath } from "node:url";

/**
 * Noto Sans KR cut to Latin and every Hangul syllable (assets/fonts/README.md), for invoice PDFs. A module of its own,
 * imported by the server's process only: inside the pages' bundle `import.meta.url` would not name this folder.
 */
export const INVOICE_FONT_PATH = fileURLToPath(
  new URL("../../../assets/fonts/noto-sans-kr-invoice.ttf.br", import.meta.url),
);
