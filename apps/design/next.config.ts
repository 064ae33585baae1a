import { shelfNextConfig } from "@shelf/web-kit/next-config";

export default shelfNextConfig();
