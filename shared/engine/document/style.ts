/**
 * Just enough CSS to tell whether text can be seen: inline `style`
 * attributes and simple rules of `<style>` elements (selectors `tag`,
 * `.class`, `#id`, `tag.class`, in comma lists). An element is hidden by
 * `display:none`, `visibility:hidden`, `opacity` near 0, the screen-reader-only
 * pattern (1px clip, off-screen position); its text is tiny when the font size
 * is under 10px (or 0.65em/rem), and faint when its colour is too close to
 * its background (contrast ratio under 1.6).
 *
 * @module
 */

/** What the declarations of one element say about visibility. */
export interface StyleFacts {
  hidden?: boolean;
  tiny?: boolean;
  /** Relative luminance of `color`, when set. */
  color?: number;
  /** Relative luminance of `background` / `background-color`, when set. */
  background?: number;
}

const DECLARATION = /([a-z-]+)\s*:\s*([^;]+)/gi;

/** The visibility facts of a declaration list (`display:none; font-size: 7px`). */
export function styleFacts(declarations: string): StyleFacts {
  const facts: StyleFacts = {};
  let offscreen = false;
  let onePixel = false;
  DECLARATION.lastIndex = 0;
  for (
    let match = DECLARATION.exec(declarations);
    match !== null;
    match = DECLARATION.exec(declarations)
  ) {
    const name = match[1].toLowerCase();
    const value = match[2].trim().toLowerCase().replace(/\s*!important$/, "");
    switch (name) {
      case "display":
        if (value === "none") facts.hidden = true;
        break;
      case "visibility":
        if (value === "hidden" || value === "collapse") facts.hidden = true;
        break;
      case "opacity":
        if (Number.parseFloat(value) < 0.15) facts.hidden = true;
        break;
      case "font-size": {
        const size = fontSizePx(value);
        if (size !== null && size < 10) facts.tiny = true;
        if (size === 0) facts.hidden = true;
        break;
      }
      case "color": {
        const lum = luminance(value);
        if (lum !== null) facts.color = lum;
        break;
      }
      case "background":
      case "background-color": {
        const lum = luminance(value.split(/\s+(?![^(]*\))/)[0]);
        if (lum !== null) facts.background = lum;
        break;
      }
      case "left":
      case "top":
      case "text-indent":
        if (/^-\d{3,}/.test(value)) offscreen = true;
        break;
      case "clip":
      case "clip-path":
        if (/rect\(\s*0|inset\(\s*(?:50%|100%)/.test(value)) onePixel = true;
        break;
      case "width":
      case "height":
        if (/^(?:0|1px|0px)$/.test(value)) onePixel = true;
        break;
    }
  }
  if (offscreen || onePixel) facts.hidden = true;
  return facts;
}

function fontSizePx(value: string): number | null {
  const match = /^(\d*\.?\d+)\s*(px|pt|em|rem|%)?$/.exec(value);
  if (match === null) return null;
  const n = Number.parseFloat(match[1]);
  switch (match[2]) {
    case "pt":
      return n * 4 / 3;
    case "em":
    case "rem":
      return n * 16;
    case "%":
      return n * 0.16;
    default:
      return n;
  }
}

const NAMED_COLORS = new Map<string, [number, number, number]>(Object.entries({
  white: [255, 255, 255],
  black: [0, 0, 0],
  transparent: [-1, -1, -1],
  snow: [255, 250, 250],
  ivory: [255, 255, 240],
  whitesmoke: [245, 245, 245],
  gainsboro: [220, 220, 220],
  lightgray: [211, 211, 211],
  lightgrey: [211, 211, 211],
  silver: [192, 192, 192],
  gray: [128, 128, 128],
  grey: [128, 128, 128],
  red: [255, 0, 0],
  navy: [0, 0, 128],
  blue: [0, 0, 255],
  green: [0, 128, 0],
  yellow: [255, 255, 0],
}) as [string, [number, number, number]][]);

/** WCAG relative luminance of a CSS colour, or null when it is not understood. */
export function luminance(value: string): number | null {
  let rgb: [number, number, number] | null = null;
  const named = NAMED_COLORS.get(value);
  if (named !== undefined) {
    if (named[0] < 0) return null;
    rgb = named;
  } else if (value.startsWith("#")) {
    const hex = value.slice(1);
    if (/^[0-9a-f]{3,4}$/.test(hex)) {
      rgb = [0, 1, 2].map((i) => parseInt(hex[i] + hex[i], 16)) as [number, number, number];
    } else if (/^[0-9a-f]{6}(?:[0-9a-f]{2})?$/.test(hex)) {
      rgb = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
    }
  } else {
    const match = /^rgba?\(\s*(\d{1,3})[\s,]+(\d{1,3})[\s,]+(\d{1,3})/.exec(value);
    if (match !== null) rgb = [Number(match[1]), Number(match[2]), Number(match[3])];
  }
  if (rgb === null) return null;
  const [r, g, b] = rgb.map((channel) => {
    const c = Math.min(255, channel) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two luminances. */
export function contrastRatio(a: number, b: number): number {
  const [hi, lo] = a > b ? [a, b] : [b, a];
  return (hi + 0.05) / (lo + 0.05);
}

/** Below this contrast ratio, text is treated as faint (WCAG's minimum for large text is 3). */
export const FAINT_CONTRAST = 1.6;

/** Simple rules of `<style>` elements, by selector key (`tag`, `.class`, `#id`, `tag.class`). */
export type StyleRules = Map<string, StyleFacts>;

const RULE = /([^{}]{1,500})\{([^{}]{0,2000})\}/g;
const SIMPLE_SELECTOR = /^([a-z][a-z0-9]*)?(?:([.#])([a-z0-9_-]+))?$/i;

/** Parses the simple rules of a style sheet; anything more complex is ignored. */
export function parseStyleRules(css: string, into: StyleRules = new Map()): StyleRules {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, "").replace(/@media[^{]*\{/g, "");
  RULE.lastIndex = 0;
  for (let match = RULE.exec(text); match !== null; match = RULE.exec(text)) {
    const facts = styleFacts(match[2]);
    if (Object.keys(facts).length === 0) continue;
    for (const raw of match[1].split(",")) {
      const selector = raw.trim().toLowerCase();
      const simple = SIMPLE_SELECTOR.exec(selector);
      if (simple === null || selector === "") continue;
      into.set(selector, { ...into.get(selector), ...facts });
    }
  }
  return into;
}
