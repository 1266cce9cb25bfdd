import assert from "node:assert/strict";
import { readHtml } from "../../shared/engine/mod.ts";
import { CHAT_VENDORS, detectChatWidgets } from "../../shared/scanner/chat_vendors.ts";

const PAGE = "https://shop.example.test/help";

/** One installation of each vendor, as its documentation shows it (account ids made up). */
const INSTALLS: Record<string, string> = {
  Intercom: `<script src="https://widget.intercom.io/widget/abc123"></script>`,
  Drift: `<script src="https://js.driftt.com/include/1700000000/x9.js"></script>`,
  Zendesk:
    `<script id="ze-snippet" src="https://static.zdassets.com/ekr/snippet.js?key=k"></script>`,
  HubSpot: `<script id="hs-script-loader" src="//js.hs-scripts.com/1234567.js"></script>`,
  LiveChat: `<script src="https://cdn.livechatinc.com/tracking.js"></script>`,
  Tidio: `<script src="//code.tidio.co/abcdefghijkl.js" async></script>`,
  Crisp: `<script src="https://client.crisp.chat/l.js" async></script>`,
  "tawk.to": `<script src="https://embed.tawk.to/5f0c/default"></script>`,
  Freshchat: `<script src="https://wchat.freshchat.com/js/widget.js"></script>`,
  Ada: `<script id="__ada" data-handle="shop" src="https://static.ada.support/embed2.js"></script>`,
  Olark:
    `<script>;(function(o,l,a,r,k,y){}(window,document,"static.olark.com/jsclient/loader.js"));olark.identify('1-2-3');</script>`,
  Botpress: `<script src="https://cdn.botpress.cloud/webchat/v2/inject.js"></script>`,
  Voiceflow:
    `<script>(function(d){var v=d.createElement('script');v.onload=function(){window.voiceflow.chat.load({})};v.src="https://cdn.voiceflow.com/widget/bundle.mjs";})(document);</script>`,
  ManyChat: `<script src="//widget.manychat.com/1234_abc.js" defer></script>`,
};

Deno.test("detectChatWidgets() recognises each vendor of the documented list", () => {
  assert.deepEqual(Object.keys(INSTALLS).sort(), CHAT_VENDORS.map((v) => v.name).sort());
  for (const [vendor, html] of Object.entries(INSTALLS)) {
    const widgets = detectChatWidgets(readHtml(`<p>Hi</p>${html}`).page, PAGE);
    assert.deepEqual(widgets.map((w) => w.vendor), [vendor], vendor);
  }
});

Deno.test("detectChatWidgets() reads iframes and inline snippets, one entry per vendor", () => {
  const html = `<iframe src="https://embed.tawk.to/chat/1" title="chat"></iframe>
    <script>window.intercomSettings = { app_id: "x" };</script>
    <script src="https://widget.intercom.io/widget/x"></script>`;
  assert.deepEqual(detectChatWidgets(readHtml(html).page, PAGE), [
    { vendor: "Intercom", via: "inline", found: "intercomSettings" },
    { vendor: "tawk.to", via: "iframe", found: "https://embed.tawk.to/chat/1" },
  ]);
});

Deno.test("detectChatWidgets() is not fooled by names in paths, look-alike hosts or the page's own scripts", () => {
  const html = `<script src="/js/intercom.js"></script>
    <script src="https://intercom.io.evil.test/widget.js"></script>
    <script src="https://notdrift.com/x.js"></script>
    <script src="https://cdn.example.test/?u=widget.intercom.io"></script>
    <iframe src="javascript:void(0)"></iframe>`;
  assert.deepEqual(detectChatWidgets(readHtml(html).page, PAGE), []);
});
