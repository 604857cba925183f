// The Bazaar's service metadata on a 402's `resource` (serviceName, tags, iconUrl): what indexers show beside a
// listing. Held to the extension's own rules (printable ASCII of at most 32 characters, five tags, an absolute
// public http(s) icon URL), so a facilitator never drops them.
import { isValidIconUrl, isValidServiceName, sanitizeTags } from "@x402/extensions/bazaar";
import { ICON_PATH } from "../../catalog/favicon.ts";
import type { AnyProduct } from "../../catalog/product.ts";
import type { Config } from "../../config.ts";

interface ServiceMetadata {
  serviceName?: string;
  tags?: string[];
  iconUrl?: string;
}

export function serviceMetadata(config: Config, product: AnyProduct): ServiceMetadata {
  const iconUrl = `${config.publicUrl}${ICON_PATH}`;
  const tags = sanitizeTags([...new Set([...(product.tags ?? []), product.sku.split(".")[0] ?? ""])]);
  return {
    ...(isValidServiceName(config.serviceName) ? { serviceName: config.serviceName } : {}),
    ...(tags ? { tags } : {}),
    // A loopback or IP-literal PUBLIC_URL (development) has no icon a catalogue could fetch.
    ...(isValidIconUrl(iconUrl) ? { iconUrl } : {}),
  };
}
