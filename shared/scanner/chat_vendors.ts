import type { PageFacts } from "../engine/mod.ts";

/** A chat-widget vendor: where its widget loads from and what its inline snippet says. */
export interface ChatVendor {
  name: string;
  /** Host names its scripts and frames load from; a subdomain of one matches too. */
  hosts: readonly string[];
  /** Identifiers its inline installation snippet uses (matched case-sensitively). */
  markers: readonly string[];
}

/**
 * The chat widgets the scanner names for the advisory model (docs/scanner.md
 * lists them). Only labels: whether a page is judged, and what a widget
 * means for compliance, is the pinned rulebook's to decide (its chat-vendor
 * concept), never this list's.
 */
export const CHAT_VENDORS: readonly ChatVendor[] = [
  {
    name: "Intercom",
    hosts: ["intercom.io", "intercomcdn.com"],
    markers: ["intercomSettings", "Intercom("],
  },
  { name: "Drift", hosts: ["driftt.com", "drift.com"], markers: ["drift.load(", "driftt"] },
  {
    name: "Zendesk",
    hosts: ["zdassets.com", "zopim.com", "zendesk.com"],
    markers: ["zESettings", "ze-snippet", "zE("],
  },
  {
    name: "HubSpot",
    hosts: ["hs-scripts.com", "usemessages.com"],
    markers: ["HubSpotConversations", "hsConversationsSettings"],
  },
  { name: "LiveChat", hosts: ["livechatinc.com"], markers: ["__lc.license", "LiveChatWidget"] },
  { name: "Tidio", hosts: ["tidio.co"], markers: ["tidioChatApi"] },
  { name: "Crisp", hosts: ["crisp.chat"], markers: ["CRISP_WEBSITE_ID", "$crisp"] },
  { name: "tawk.to", hosts: ["tawk.to"], markers: ["Tawk_API"] },
  { name: "Freshchat", hosts: ["freshchat.com", "fw-cdn.com"], markers: ["fcWidget"] },
  { name: "Ada", hosts: ["ada.support"], markers: ["adaEmbed", "adaSettings"] },
  { name: "Olark", hosts: ["olark.com"], markers: ["olark.identify", "olark("] },
  { name: "Botpress", hosts: ["botpress.cloud"], markers: ["botpressWebChat", "window.botpress"] },
  { name: "Voiceflow", hosts: ["voiceflow.com"], markers: ["voiceflow.chat"] },
  { name: "ManyChat", hosts: ["manychat.com", "mccdn.me"], markers: ["mcwidget"] },
];

/** A chat widget found on a page. */
export interface ChatWidget {
  vendor: string;
  /** What names it: a script's or an iframe's source, or an inline script. */
  via: "script" | "iframe" | "inline";
  /** The source URL, or the marker an inline script uses. */
  found: string;
}

/**
 * The chat widgets of a page, one per vendor, in page order: scripts and
 * iframes whose source is on a vendor's host, and inline scripts that use a
 * vendor's snippet identifiers.
 */
export function detectChatWidgets(page: PageFacts, pageUrl: string): ChatWidget[] {
  const found = new Map<string, ChatWidget>();
  const bySource = (src: string, via: "script" | "iframe") => {
    const vendor = vendorOfUrl(src, pageUrl);
    if (vendor !== undefined && !found.has(vendor.name)) {
      found.set(vendor.name, { vendor: vendor.name, via, found: src.slice(0, 300) });
    }
  };
  for (const script of page.scripts) {
    if (script.src !== null) bySource(script.src, "script");
    else if (script.inline !== null) {
      for (const vendor of CHAT_VENDORS) {
        const marker = vendor.markers.find((m) => script.inline?.includes(m));
        if (marker !== undefined && !found.has(vendor.name)) {
          found.set(vendor.name, { vendor: vendor.name, via: "inline", found: marker });
        }
      }
    }
  }
  for (const frame of page.iframes) bySource(frame.src, "iframe");
  return [...found.values()];
}

/** The vendor whose host serves `src` (resolved against the page), if any. */
function vendorOfUrl(src: string, pageUrl: string): ChatVendor | undefined {
  if (!URL.canParse(src, pageUrl)) return undefined;
  const host = new URL(src, pageUrl).hostname.toLowerCase().replace(/\.$/, "");
  return CHAT_VENDORS.find((vendor) =>
    vendor.hosts.some((name) => host === name || host.endsWith(`.${name}`))
  );
}
