import type { Browser, Page } from "playwright-core";
import { type ImageInfo, imageInfo } from "./image-info";

/** The contract's limit of a capture's image, in bytes. */
export const THUMBNAIL_LIMIT = 30_720;

export type Thumbnail = ImageInfo & { bytes: Buffer };

/**
 * Makes thumbnails inside Chromium, on a blank page of its own (no site's policy or script in the way): a screenshot
 * is drawn downscaled on a canvas and encoded as WebP (`toDataURL`), or JPEG where this Chromium cannot encode WebP,
 * at falling quality and then falling width until it fits the limit.
 */
export class ThumbnailMaker {
  private constructor(private readonly page: Page) {}

  static async open(browser: Browser): Promise<ThumbnailMaker> {
    const page = await browser.newPage();
    await page.goto("about:blank");
    return new ThumbnailMaker(page);
  }

  async make(png: Buffer, width: number, limit = THUMBNAIL_LIMIT): Promise<Thumbnail> {
    const encoded = await this.page.evaluate(
      async ({ base64, startWidth, limit }) => {
        const blob = await (await fetch(`data:image/png;base64,${base64}`)).blob();
        const bitmap = await createImageBitmap(blob);
        const canvas = document.createElement("canvas");
        const context = canvas.getContext("2d");
        if (!context) return null;
        const webp = canvas.toDataURL("image/webp").startsWith("data:image/webp");
        const type = webp ? "image/webp" : "image/jpeg";
        let target = Math.min(startWidth, bitmap.width);
        for (let round = 0; round < 16; round += 1) {
          const height = Math.max(1, Math.round((bitmap.height * target) / bitmap.width));
          canvas.width = target;
          canvas.height = height;
          context.imageSmoothingEnabled = true;
          context.imageSmoothingQuality = "high";
          context.fillStyle = "#fff";
          context.fillRect(0, 0, target, height);
          context.drawImage(bitmap, 0, 0, target, height);
          for (const quality of [0.82, 0.7, 0.58, 0.46]) {
            const url = canvas.toDataURL(type, quality);
            const data = url.slice(url.indexOf(",") + 1);
            const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
            if (Math.floor((data.length * 3) / 4) - padding <= limit) return data;
          }
          target = Math.max(8, Math.floor(target * 0.8));
        }
        return null;
      },
      { base64: png.toString("base64"), startWidth: width, limit },
    );
    if (encoded === null) throw new Error("Chromium could not make a thumbnail within the limit");
    const bytes = Buffer.from(encoded, "base64");
    const info = imageInfo(bytes);
    if (!info || info.type === "png") throw new Error("Chromium's encoder gave neither WebP nor JPEG");
    return { ...info, bytes };
  }

  async close(): Promise<void> {
    await this.page.context().close();
  }
}
