import assert from "node:assert/strict";
import { compliancePages, MAX_COMPLIANCE_PAGES } from "../../shared/scanner/compliance_pages.ts";

const PAGE = "https://shop.example.test/products/chairs?ref=nav#top";
const link = (href: string, text = "") => ({ href, text });

Deno.test("compliancePages() picks one same-origin page of each kind, first in page order", () => {
  const links = [
    link("/about", "About us"),
    link("/legal/privacy-policy", "Privacy"),
    link("/privacy-choices", "Your privacy choices"),
    link("/tos", "Terms"),
    link("/a11y", "Accessibility"),
    link("/contact-us", ""),
    link("/help-center", "Support"),
    link("https://shop.example.test/chat#open", "Chat"),
  ];
  assert.deepEqual(compliancePages(links, PAGE), [
    { kind: "privacy", url: "https://shop.example.test/legal/privacy-policy" },
    { kind: "terms", url: "https://shop.example.test/tos" },
    { kind: "accessibility", url: "https://shop.example.test/a11y" },
    { kind: "contact", url: "https://shop.example.test/contact-us" },
    { kind: "chat", url: "https://shop.example.test/help-center" },
  ]);
  assert.equal(MAX_COMPLIANCE_PAGES, 5);
});

Deno.test("compliancePages() never follows another origin, another scheme, a file or the page itself", () => {
  const links = [
    link("https://other.example.test/privacy", "Privacy"),
    link("http://shop.example.test/privacy", "Privacy (http)"),
    link("https://shop.example.test:8443/terms", "Terms"),
    link("mailto:privacy@shop.example.test", "Privacy"),
    link("javascript:openChat()", "Chat"),
    link("/docs/privacy.pdf", "Privacy (PDF)"),
    link("/products/chairs?ref=nav#help", "Help"),
    link("//evil.test/contact", "Contact"),
    link("http://[::1]/contact", "Contact"),
    link("", "Support"),
  ];
  assert.deepEqual(compliancePages(links, PAGE), []);
});

Deno.test("compliancePages() reads a link's words from its text or its path, in any case", () => {
  assert.deepEqual(compliancePages([link("/p/Datenschutz", "PRIVACY NOTICE")], PAGE), [
    { kind: "privacy", url: "https://shop.example.test/p/Datenschutz" },
  ]);
  assert.deepEqual(compliancePages([link("/live_chat", "")], PAGE), [
    { kind: "chat", url: "https://shop.example.test/live_chat" },
  ]);
  // One page serves one kind only.
  assert.deepEqual(compliancePages([link("/privacy-and-terms", "Privacy and terms")], PAGE), [
    { kind: "privacy", url: "https://shop.example.test/privacy-and-terms" },
  ]);
});
