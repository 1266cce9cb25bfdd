// The landing page's scan form: calls runWebsiteAudit and shows the answer.
//
// Everything the API answers, and above all the evidence (words copied from a
// third-party website), is put on the page as text (textContent, or a link
// whose href is checked to be http or https), never parsed as HTML.

/** How long the page waits for a scan: the API's 25 s budget, its advisory and the network. */
const SCAN_TIMEOUT_MS = 60_000;

/** The API's {base_url} from `<meta name="api-base-url">`; same origin `/functions` by default. */
export function apiBaseUrl(doc = document) {
  const configured = doc.querySelector('meta[name="api-base-url"]')?.getAttribute("content");
  const raw = configured?.trim() || "/functions";
  return new URL(raw, doc.baseURI).href.replace(/\/+$/, "");
}

const EVIDENCE_TYPES = {
  text: "Visible text",
  attribute: "Image text, title or label",
  form: "Form field",
  meta: "Page title or meta tag",
  hidden: "Hidden content",
  tiny: "Text too small or faint to read",
  script: "Script source",
  iframe: "Embedded frame source",
};

const $ = (id) => document.getElementById(id);

/** An element with a class and text; children appended in order. */
function el(tag, options = {}, ...children) {
  const node = document.createElement(tag);
  if (options.className) node.className = options.className;
  if (options.text !== undefined) node.textContent = String(options.text);
  for (const child of children) if (child) node.append(child);
  return node;
}

/** A link to an http(s) page, or the text alone when the value is anything else. */
function sourceLink(value) {
  let url;
  try {
    url = new URL(String(value));
  } catch {
    return document.createTextNode(String(value));
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return document.createTextNode(String(value));
  }
  const link = el("a", { text: url.href });
  link.href = url.href;
  link.rel = "nofollow noopener noreferrer";
  return link;
}

/** What the visitor typed, as a URL to scan; throws a message the form shows. */
export function targetFromInput(text) {
  const value = text.trim();
  if (value === "") {
    throw new Error("Enter the address of a website, such as https://www.example.com/.");
  }
  // "example.com:8080/x" has no scheme; "mailto:", "javascript:" and the like are not web pages.
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ||
    /^(about|blob|data|file|javascript|mailto|tel|vbscript):/i.test(value);
  const withScheme = hasScheme ? value : `https://${value}`;
  if (!/^https?:\/\//i.test(withScheme)) {
    throw new Error("Only web addresses that start with http:// or https:// can be scanned.");
  }
  return withScheme;
}

/** Seconds to wait from a Retry-After header (seconds or an HTTP date); undefined if absent. */
export function retryAfterSeconds(header, now = Date.now()) {
  if (header === null || header === undefined || header.trim() === "") return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The plain-language title and explanation of a refused or failed scan. */
export function problemFor(status, errorText, retryAfter) {
  switch (status) {
    case 400:
      return {
        title: "That address can't be scanned",
        text:
          "Check the web address: it should be a full address such as https://www.example.com/, without spaces, and without a user name or password in it.",
      };
    case 403:
      return /robots/i.test(errorText ?? "")
        ? {
          title: "This site asks scanners not to visit this page",
          text:
            "The site's robots.txt file does not allow automated scanners like ours to read this page (or it could not be read, which we treat the same way), so we did not scan it. If it is your site, allow our scanner in robots.txt, or try another page.",
        }
        : {
          title: "We don't scan this address",
          text:
            "For safety we only scan public websites on the usual web ports (80 and 443). This address points to a private or local network, a port we don't use, or a name with no public address.",
        };
    case 415:
      return {
        title: "There is no web page here we can read",
        text:
          "The address is not an HTML web page (it may be a PDF, an image or a download), or the page shows its content only through JavaScript, which our scanner does not run. Try the site's home page or another page.",
      };
    case 429: {
      const when = retryAfter === undefined
        ? "in a minute"
        : `in ${retryAfter} second${retryAfter === 1 ? "" : "s"} (at ${
          new Date(Date.now() + retryAfter * 1000).toLocaleTimeString([], {
            hour: "2-digit",
            minute: "2-digit",
            second: "2-digit",
          })
        })`;
      return {
        title: "Too many scans in a short time",
        text:
          `Each network may run 10 scans a minute, and that limit has been reached. You can scan again ${when}.`,
      };
    }
    case 502:
      return {
        title: "We couldn't reach that website",
        text:
          "The site did not answer, answered with an error page, took too long or sent something broken. Check that the address is right and that the site opens in your browser, then try again.",
      };
    case 500:
      return {
        title: "Something went wrong on our side",
        text:
          "The scan could not be completed because of a problem with our service. Please try again in a few minutes.",
      };
    case 0:
      return {
        title: "The scanning service could not be reached",
        text: "Check your internet connection and try again.",
      };
    default:
      return {
        title: "The scan did not work",
        text: `The service answered with an unexpected status (${status}). Please try again later.`,
      };
  }
}

function isFinding(value) {
  return value !== null && typeof value === "object" && typeof value.title === "string" &&
    Array.isArray(value.evidence ?? []);
}

/** True when `body` has the fields this page shows. */
function isScanResult(body) {
  return body !== null && typeof body === "object" && typeof body.score === "number" &&
    typeof body.grade === "string" &&
    ["critical", "warnings", "passed", "advisory"].every((key) =>
      Array.isArray(body[key]) && body[key].every(isFinding)
    );
}

function renderFinding(finding) {
  const item = el("li", { className: "finding" });
  item.append(el("h4", { text: finding.title }));
  if (finding.plain_english) item.append(el("p", { text: finding.plain_english }));
  if (finding.statute_ref) {
    item.append(el("p", { className: "statute", text: `Law: ${finding.statute_ref}` }));
  }
  const evidence = Array.isArray(finding.evidence) ? finding.evidence : [];
  if (evidence.length > 0) {
    const list = el("ul", { className: "evidence" });
    list.setAttribute("aria-label", "Evidence");
    for (const piece of evidence) {
      const label = EVIDENCE_TYPES[piece.type] ?? String(piece.type ?? "Evidence");
      const source = el("p", { className: "source", text: "Source: " });
      source.append(sourceLink(piece.source_url));
      list.append(el(
        "li",
        {},
        el("p", { className: "evidence-type", text: label }),
        el("blockquote", { text: piece.excerpt ?? "" }),
        source,
      ));
    }
    item.append(list);
  }
  return item;
}

function renderGroup(name, findings) {
  const list = $(`${name}-list`);
  list.replaceChildren(...findings.map(renderFinding));
  $(`${name}-empty`).hidden = findings.length > 0;
  const titles = { critical: "Critical", warnings: "Warnings", passed: "Passed" };
  if (titles[name]) $(`${name}-title`).textContent = `${titles[name]} (${findings.length})`;
}

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

function renderResults(target, body) {
  $("results-target").textContent = `Scanned ${target}`;
  $("grade").textContent = body.grade;
  $("grade").closest(".grade-card").dataset.grade = body.grade;
  $("score-value").textContent = String(Math.round(body.score * 10) / 10);
  $("counts").textContent = [
    plural(body.critical.length, "critical finding", "critical findings"),
    plural(body.warnings.length, "warning", "warnings"),
    plural(body.passed.length, "check passed", "checks passed"),
  ].join(", ");
  renderGroup("critical", body.critical);
  renderGroup("warnings", body.warnings);
  renderGroup("passed", body.passed);
  $("passed-details").hidden = body.passed.length === 0;
  $("passed-details").open = false;
  $("passed-summary").textContent = `Show the ${
    plural(body.passed.length, "check", "checks")
  } your pages passed`;
  $("advisory-list").replaceChildren(...body.advisory.map((item) => {
    const node = renderFinding(item);
    const kind = item.severity === "passed" ? "Done well" : "Worth a look";
    node.prepend(el("p", { className: "advisory-kind", text: kind }));
    return node;
  }));
  $("advisory").hidden = body.advisory.length === 0;
  const meta = body.scan_meta ?? {};
  const parts = [];
  if (typeof meta.scan_duration_ms === "number") {
    parts.push(`Scan took ${(meta.scan_duration_ms / 1000).toFixed(1)} s`);
  }
  if (meta.robots_respected) parts.push("robots.txt respected");
  if (meta.engine_version) parts.push(`rule engine ${meta.engine_version}`);
  $("scan-meta").textContent = parts.join(" · ");
  document.title = `Grade ${body.grade}, score ${
    $("score-value").textContent
  }: website compliance scan`;
  $("results").hidden = false;
  $("results").focus();
}

function showProblem(problem, detail) {
  $("problem-title").textContent = problem.title;
  $("problem-text").textContent = problem.text;
  const detailNode = $("problem-detail");
  detailNode.hidden = !detail;
  detailNode.textContent = detail ? `The service said: ${detail}` : "";
  $("problem").hidden = false;
  $("problem").focus();
}

function showFieldError(message) {
  const input = $("target-url");
  const error = $("target-url-error");
  error.textContent = message;
  error.hidden = false;
  input.setAttribute("aria-invalid", "true");
  input.focus();
}

function clearFieldError() {
  $("target-url-error").hidden = true;
  $("target-url-error").textContent = "";
  $("target-url").removeAttribute("aria-invalid");
}

let running = null;

async function scan(target) {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException("timeout", "TimeoutError")),
    SCAN_TIMEOUT_MS,
  );
  const started = Date.now();
  const host = (() => {
    try {
      return new URL(target).host;
    } catch {
      return target;
    }
  })();
  running = controller;
  $("problem").hidden = true;
  $("results").hidden = true;
  $("scan-button").disabled = true;
  $("scan-form").setAttribute("aria-busy", "true");
  $("progress-text").textContent =
    `Scanning ${host}: reading robots.txt, the page and up to five linked pages. This usually takes a few seconds, at most about half a minute.`;
  $("progress").hidden = false;
  const ticker = setInterval(() => {
    $("progress-bar").setAttribute(
      "aria-valuetext",
      `${Math.round((Date.now() - started) / 1000)} seconds`,
    );
  }, 1000);
  try {
    let response;
    try {
      response = await fetch(`${apiBaseUrl()}/runWebsiteAudit`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ target_url: target }),
        signal: controller.signal,
      });
    } catch (error) {
      if (controller.signal.aborted && controller.signal.reason?.name === "TimeoutError") {
        showProblem({
          title: "The scan took too long",
          text:
            "We stopped waiting for an answer. The site may be very slow; please try again later.",
        });
      } else if (controller.signal.aborted) {
        showProblem({ title: "Scan cancelled", text: "Nothing was scanned for you this time." });
      } else {
        showProblem(problemFor(0), String(error?.message ?? ""));
      }
      return;
    }
    const text = await response.text().catch(() => "");
    let body = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
    if (response.ok && isScanResult(body)) {
      renderResults(target, body);
      return;
    }
    const errorText = body !== null && typeof body === "object" && typeof body.error === "string"
      ? body.error
      : undefined;
    const status = response.ok ? 500 : response.status;
    showProblem(
      problemFor(status, errorText, retryAfterSeconds(response.headers.get("retry-after"))),
      errorText,
    );
  } finally {
    clearTimeout(timer);
    clearInterval(ticker);
    running = null;
    $("progress").hidden = true;
    $("scan-button").disabled = false;
    $("scan-form").removeAttribute("aria-busy");
  }
}

function start() {
  const form = $("scan-form");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (running !== null) return;
    clearFieldError();
    let target;
    try {
      target = targetFromInput($("target-url").value);
    } catch (error) {
      showFieldError(error.message);
      return;
    }
    scan(target);
  });
  $("cancel-button").addEventListener("click", () => running?.abort());
  $("target-url").addEventListener("input", clearFieldError);
}

if (typeof document !== "undefined" && document.getElementById("scan-form")) start();
