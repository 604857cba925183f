// The one recordings folder of the company-register family (file names prefixed by country: `cz-…`).
import path from "node:path";

export const COMPANIES_RECORDINGS_DIR = path.join(import.meta.dirname, "recordings");
