// <focal-img>: an image that keeps faces, pets and people in view, whatever its box.
//
//   <link rel="stylesheet" href="https://img.example/focal-img.css">   (its box before this runs)
//   <script type="module" src="https://img.example/focal-img.js"></script>
//   <focal-img src="team.jpg" server="https://img.example" alt="Our team" aspect="16:9"></focal-img>
//
// The element measures its own CSS box, multiplies it by devicePixelRatio, rounds it up to a
// step (so that results stay cacheable) and asks a Focal server for the crop of exactly that
// size; it asks again whenever the box changes. The request in flight is aborted when a newer
// one starts, and a response that arrives after a newer request started is never shown. Every
// attribute is described in docs/element.md.
//
// With an `<img>` child (markup that works without JavaScript, written by `focalImgMarkup`), the
// element enhances that image instead: it stays visible, and once the exact crop for the box has
// loaded, the `<img>` is pointed at it.
//
// Module exports: the element class, `frameSize` (the size the element requests for a box),
// `batchSigner` (a signing function for a `/v1/sign`-style endpoint), and `focalSources`,
// `focalSrcset` and `focalImgMarkup` (the no-JavaScript markup, for static sites and server-side
// rendering; the module loads without a DOM for them).

/** Default rounding step, in device pixels. */
const DEFAULT_STEP = 16;
/** The largest side ever requested; a larger box gets an image scaled up by the browser. */
const MAX_SIDE = 4096;
/** How long the new crop takes to fade in. */
const FADE_MS = 240;
/** Page-wide memory for elements that have a cache-name: the bytes of crops held as blobs… */
const MEMORY_BYTES = 48 << 20;
/** …and the crops remembered in all (most by URL only: the browser holds their pixels). */
const MEMORY_ENTRIES = 512;
/** How long a shown crop's plan is looked for in its Resource Timing entry, in milliseconds. */
const TIMING_WAIT_MS = 250;
/** Default for `max-dpr`: screens denser than this get an image the browser scales up a little. */
const DEFAULT_MAX_DPR = 2;
/** `placeholder="preview"`: the long side, in pixels, of the tiny crop shown blurred while loading. */
const PREVIEW_SIDE = 24;
/**
 * How far outside the viewport (and outside a scrolling container's visible part) a lazy element
 * starts loading: Chromium's distance for lazy images on a slow connection. Farther than its
 * 1250 px on a fast one, because a crop takes the server a detection (some 100 ms) more than a
 * stored image does.
 */
const LAZY_MARGIN = '2500px';
/**
 * Whether the element (and the markup helpers) ask for each option's element default when its
 * attribute is absent (the table gives `format`'s: `auto`, so the server picks AVIF, WebP or JPEG
 * from the `Accept` header). Set it to false for a Focal server older than `format(auto)`,
 * which refuses the filter with a 400.
 */
const AUTO_FORMAT = true;
/** The widths `focalSrcset` and `focalImgMarkup` offer by default, in pixels. */
const DEFAULT_WIDTHS = [320, 480, 640, 800, 1024, 1280, 1600, 1920];

/**
 * The crop options, from the server's option table: each one's attribute, URL filter (null for
 * `detect`, which is the URL's `smart/`) and the element's default (null: left out). Generated
 * (`make generated` writes the table between the markers; a test fails when it is stale), so the
 * element takes every option the server does, and no other.
 */
const CROP_OPTIONS = /*focal:crop-options*/[
  {"attribute": "scheme", "filter": "scheme", "default": null},
  {"attribute": "padding", "filter": "padding", "default": null},
  {"attribute": "headroom", "filter": "headroom", "default": null},
  {"attribute": "zoom", "filter": "zoom", "default": null},
  {"attribute": "focus", "filter": "focal", "default": null},
  {"attribute": "detect", "filter": null, "default": null},
  {"attribute": "accuracy", "filter": "accuracy", "default": null},
  {"attribute": "format", "filter": "format", "default": "auto"},
  {"attribute": "quality", "filter": "quality", "default": null},
  {"attribute": "redact", "filter": "redact", "default": null},
  {"attribute": "kinds", "filter": "kinds", "default": null},
  {"attribute": "placement", "filter": "placement", "default": null},
  {"attribute": "tight", "filter": "tight", "default": null},
  {"attribute": "draw-detections", "filter": "draw_detections", "default": null},
  {"attribute": "no-upscale", "filter": "no_upscale", "default": null, "bare": true},
  {"attribute": "upscale", "filter": "upscale", "default": null, "bare": true},
  {"attribute": "proportion", "filter": "proportion", "default": null},
  {"attribute": "stretch", "filter": "stretch", "default": null, "bare": true},
  {"attribute": "fill", "filter": "fill", "default": null},
  {"attribute": "lossless", "filter": "lossless", "default": null, "bare": true},
  {"attribute": "max-bytes", "filter": "max_bytes", "default": null},
  {"attribute": "autojpg", "filter": "autojpg", "default": null, "bare": true},
  {"attribute": "first-frames", "filter": "max_frames", "default": null},
  {"attribute": "page", "filter": "page", "default": null},
  {"attribute": "orient", "filter": "orient", "default": null},
  {"attribute": "watermark", "filter": "watermark", "default": null},
  {"attribute": "overlay", "filter": "image", "default": null},
  {"attribute": "frame", "filter": "frame", "default": null},
  {"attribute": "trim", "filter": null, "default": null, "segment": "trim"},
  {"attribute": "brightness", "filter": "brightness", "default": null},
  {"attribute": "contrast", "filter": "contrast", "default": null},
  {"attribute": "saturation", "filter": "saturation", "default": null},
  {"attribute": "rgb", "filter": "rgb", "default": null},
  {"attribute": "grayscale", "filter": "grayscale", "default": null, "bare": true},
  {"attribute": "equalize", "filter": "equalize", "default": null, "bare": true},
  {"attribute": "colorize", "filter": "colorize", "default": null},
  {"attribute": "hue", "filter": "hue", "default": null},
  {"attribute": "curve", "filter": "curve", "default": null},
  {"attribute": "noise", "filter": "noise", "default": null},
  {"attribute": "blur", "filter": "blur", "default": null},
  {"attribute": "sharpen", "filter": "sharpen", "default": null},
  {"attribute": "convolution", "filter": "convolution", "default": null},
  {"attribute": "round-corner", "filter": "round_corner", "default": null},
  {"attribute": "label", "filter": "label", "default": null},
  {"attribute": "rotate", "filter": "rotate", "default": null},
  {"attribute": "output-crop", "filter": "output_crop", "default": null},
  {"attribute": "background-color", "filter": "background_color", "default": null}
]/*/focal:crop-options*/;

/** Attributes that change which crop is requested. */
const REQUEST_ATTRIBUTES = [
  'src', 'server', 'step', 'ladder', 'max-dpr', 'signer', 'cache-name', 'revalidate', 'version', 'preset',
  ...CROP_OPTIONS.map((option) => option.attribute),
];

// ---------------------------------------------------------------------------------------------
// Sizes

/**
 * The size, in device pixels, that an element of `width` × `height` CSS pixels requests.
 *
 * When the box is a simple ratio (16:9, 4:5, 23:22 ... terms up to 32, within half a CSS pixel)
 * the result has exactly that ratio, so that a crop saved for that aspect applies, and its longer
 * side moves in steps of about `step`. Otherwise each side is rounded up to a multiple of `step`.
 * Nothing is larger than MAX_SIDE on a side, nor than `limit` when given.
 * @param {number} width  the box's width in CSS pixels
 * @param {number} height  the box's height in CSS pixels
 * @param {number} [dpr=1]  device pixels per CSS pixel (the element caps it at `max-dpr`)
 * @param {number} [step=16]  rounding step in device pixels
 * @param {{width: number, height: number}} [limit]  the most the source holds for this box's
 *   shape (its crop region in source pixels): the result keeps the box's ratio within it
 * @returns {{width: number, height: number} | null}  null for an empty box
 */
export function frameSize(width, height, dpr = 1, step = DEFAULT_STEP, limit = null) {
  if (!(width > 0 && height > 0)) return null;
  step = Math.max(1, Math.round(step) || DEFAULT_STEP);
  const tw = width * dpr - 1e-6, th = height * dpr - 1e-6;   // 320.0000001 is 320
  const ratio = simpleRatio(width, height);
  if (ratio) {
    const [p, q] = ratio, long = Math.max(p, q);
    const unit = Math.ceil(step / long);                       // k moves in steps of `unit`
    let k = unit * Math.ceil(Math.max(tw / p, th / q) / unit);
    k = Math.min(k, Math.floor(MAX_SIDE / long));
    if (limit) k = Math.min(k, Math.floor(Math.min(limit.width / p, limit.height / q)));
    k = Math.max(1, k);
    return { width: k * p, height: k * q };
  }
  let w = step * Math.ceil(tw / step), h = step * Math.ceil(th / step);
  const over = Math.max(w / MAX_SIDE, h / MAX_SIDE, limit ? w / limit.width : 0, limit ? h / limit.height : 0);
  if (over > 1) {
    // Scaled down to fit, with the box's own shape rather than the rounded one.
    const scale = Math.min(MAX_SIDE / tw, MAX_SIDE / th, limit ? limit.width / tw : Infinity, limit ? limit.height / th : Infinity);
    w = Math.max(1, Math.floor(tw * scale + 1e-6)); h = Math.max(1, Math.floor(th * scale + 1e-6));
  }
  return { width: w, height: h };
}

/**
 * The size, in device pixels, that an element with a `ladder` of long sides requests: the box's
 * simple ratio (or the nearest one with terms up to 32), its long side the smallest rung that
 * covers the box at `dpr` (the largest when none does, or past `limit`), its short side that
 * times the ratio, rounded. A server that signs only such sizes (`/v1/page-urls`) holds a few
 * thousand shapes per photo, not millions.
 * @returns {{width: number, height: number} | null}  null for an empty box or an empty ladder
 */
function ladderSize(width, height, dpr, ladder, limit = null) {
  if (!(width > 0 && height > 0) || !ladder.length) return null;
  const [p, q] = simpleRatio(width, height) || nearestRatio(width, height);
  const needed = Math.max(width, height) * dpr - 1e-6;
  const most = limit ? Math.max(limit.width, limit.height) : Infinity;
  const fitting = ladder.filter((side) => side <= most);
  const rungs = fitting.length ? fitting : ladder.slice(0, 1);
  const long = rungs.find((side) => side >= needed) ?? rungs[rungs.length - 1];
  const short = Math.max(1, Math.round(long * Math.min(p, q) / Math.max(p, q)));
  return p >= q ? { width: long, height: short } : { width: short, height: long };
}

/** `[p, q]` in lowest terms (each up to 32) nearest to width:height, however far. */
function nearestRatio(width, height) {
  let best = [1, 1], bestError = Infinity;
  for (let q = 1; q <= 32; q++) {
    for (let p = 1; p <= 32; p++) {
      const error = Math.abs(p * height - q * width) / (q * height);
      if (error < bestError - 1e-12 && gcd(p, q) === 1) { best = [p, q]; bestError = error; }
    }
  }
  return best;
}

/** The long sides of a `ladder` attribute ("64 128 256"), ascending; empty when there is none. */
function ladderSides(text) {
  return String(text || '').split(/[\s,]+/).map(Number).filter((n) => Number.isInteger(n) && n > 0).sort((a, b) => a - b);
}

/**
 * `[p, q]` in lowest terms (each up to 32) closest to width:height among those within half a
 * CSS pixel of the box, so the exact ratio when it is simple (184×176 is 23:22, not 22:21); the
 * smaller terms win a tie. Null when no such ratio is that close.
 */
function simpleRatio(width, height) {
  let best = null, bestError = Infinity;
  for (let q = 1; q <= 32; q++) {
    // Only the p within half a pixel of width (|p·height/q − width| ≤ 0.5) can pass: a p or two,
    // not 32 (this runs before the element's first request).
    const centre = (width * q) / height, spread = (0.5 * q) / height;
    const from = Math.max(1, Math.floor(centre - spread)), to = Math.min(32, Math.ceil(centre + spread));
    for (let p = from; p <= to; p++) {
      if (Math.abs((p * height) / q - width) > 0.5 || Math.abs((q * width) / p - height) > 0.5) continue;
      if (gcd(p, q) !== 1) continue;
      const error = Math.abs(p * height - q * width) / (q * height);   // |p/q - width/height|
      if (error < bestError - 1e-12 || (Math.abs(error - bestError) <= 1e-12 && p + q < best[0] + best[1])) {
        best = [p, q]; bestError = error;
      }
    }
  }
  return best;
}

/** The largest `width` × `height` of the ratio `aspect` that fits in `limit`. */
function fitRatio(aspect, limit) {
  return limit.width / limit.height > aspect
    ? { width: limit.height * aspect, height: limit.height }
    : { width: limit.width, height: limit.width / aspect };
}

/** The greatest common divisor of two whole numbers (no array per step: it runs before the first request). */
function gcd(a, b) {
  while (b) { const rest = a % b; a = b; b = rest; }
  return a;
}

/** An `aspect` attribute ("16:9", "16/9", "16x9" or "1.5") as a positive number, or null. */
function parseAspect(text) {
  if (!text) return null;
  const parts = text.split(/[:/x]/).map(Number);
  const value = parts.length === 2 ? parts[0] / parts[1] : parts[0];
  return Number.isFinite(value) && value > 0 ? value : null;
}

// ---------------------------------------------------------------------------------------------
// URLs and signing

/**
 * Why `src` cannot be requested, or null when it can. A path whose segments the URL parser would
 * rewrite (`.`, `..`, backslashes, empty segments, control characters) is refused, so that the
 * URL requested (and signed) is always the one built.
 */
function sourceProblem(src) {
  if (/^(https?|s3):\/\//i.test(src)) return /[\u0000-\u001f\u007f]/.test(src) ? 'control characters in the URL' : null;
  if (/[\u0000-\u001f\u007f]/.test(src)) return 'control characters in the path';
  if (src.includes('\\')) return 'a backslash in the path';
  const parts = src.replace(/^\/+/, '').split('/');
  if (parts.some((part) => part === '.' || part === '..')) return 'a "." or ".." segment in the path';
  if (parts.some((part, index) => part === '' && index < parts.length - 1) || parts.at(-1) === '') return 'an empty segment in the path';
  return null;
}

/**
 * The candidates of a `srcset` value, as the HTML standard splits them: `{url, w, x}` with `w`
 * (a width descriptor) or `x` (a density; 1 when there is no descriptor). A URL may hold commas
 * (thumbor's filters do); only a comma after a URL or between descriptors separates candidates.
 */
function parseSrcset(text) {
  const out = [];
  let i = 0;
  const n = text.length;
  const space = (c) => c === ' ' || c === '\t' || c === '\n' || c === '\f' || c === '\r';
  while (i < n) {
    while (i < n && (space(text[i]) || text[i] === ',')) i++;
    if (i >= n) break;
    let start = i;
    while (i < n && !space(text[i])) i++;
    let url = text.slice(start, i);
    const descriptors = [];
    if (url.endsWith(',')) url = url.replace(/,+$/, '');
    else {
      // Descriptors up to the next comma outside parentheses.
      let current = '', depth = 0;
      for (; i < n; i++) {
        const c = text[i];
        if (c === '(') depth++;
        else if (c === ')') depth = Math.max(0, depth - 1);
        else if (c === ',' && depth === 0) { i++; break; }
        if (space(c) && depth === 0) { if (current) descriptors.push(current); current = ''; } else current += c;
      }
      if (current) descriptors.push(current);
    }
    const candidate = { url, w: null, x: 1 };
    for (const d of descriptors) {
      const value = Number(d.slice(0, -1));
      if (!(Number.isFinite(value) && value > 0)) continue;
      if (d.endsWith('w')) candidate.w = value;
      else if (d.endsWith('x')) candidate.x = value;
    }
    if (url) out.push(candidate);
  }
  return out;
}

/**
 * The width in image pixels of the candidate an `<img>` shows. `naturalWidth` is in CSS pixels
 * for a `srcset` candidate (the image's width divided by the candidate's density), so a 2x
 * candidate of a 500 px box reads 500; this reads its descriptor instead: `1000w` is 1000, `2x`
 * is twice `naturalWidth`. The candidate is looked up by `currentSrc` in the `<img>`'s `srcset`
 * and in those of its `<picture>`'s `<source>`s; an image from `src` alone is at density 1.
 */
function candidateWidth(img) {
  const current = img.currentSrc;
  const sets = [img.getAttribute('srcset')];
  if (img.parentElement?.localName === 'picture') {
    for (const source of img.parentElement.querySelectorAll(':scope > source')) sets.push(source.getAttribute('srcset'));
  }
  for (const set of sets) {
    if (!set) continue;
    for (const candidate of parseSrcset(set)) {
      let url;
      try { url = new URL(candidate.url, document.baseURI).href; } catch { continue; }
      if (url !== current) continue;
      return candidate.w ?? img.naturalWidth * candidate.x;
    }
  }
  return img.naturalWidth;
}

/**
 * Whether an `<img>` with `sizes="auto, …"` and `w` candidates of the box's shape (its `width`
 * and `height` attributes) will pick, for its laid-out width at this pixel ratio, a candidate
 * that can stand for a crop of `size`: then it is left to load that one.
 */
function autoSizedFits(img, size) {
  if (!/^\s*auto\s*(,|$)/i.test(img.getAttribute('sizes') || '') || !size) return false;
  const w = Number(img.getAttribute('width')), h = Number(img.getAttribute('height'));
  const want = size.width / size.height;
  if (!(w > 0 && h > 0) || Math.abs(w / h - want) > 0.01 * want) return false;
  const widths = parseSrcset(img.getAttribute('srcset') || '').map((c) => c.w).filter((v) => v > 0).sort((a, b) => a - b);
  const needed = img.getBoundingClientRect().width * (globalThis.devicePixelRatio || 1);
  const chosen = widths.find((v) => v >= needed) ?? widths.at(-1);
  return chosen >= 0.9 * size.width;
}

/**
 * Whether a loaded `<img>` can stand for a crop of `size` (in device pixels): the same shape
 * (within 1 %) and at least nine tenths of its width in the pixels of the candidate shown.
 */
function fitsFrame(img, size) {
  const w = img.naturalWidth, h = img.naturalHeight;
  if (!(w > 0 && h > 0 && size)) return false;
  const want = size.width / size.height;
  return Math.abs(w / h - want) <= 0.01 * want && candidateWidth(img) >= 0.9 * size.width;
}

/** The image part of a URL: a path under the server's root, `id:<sha256>`, or an http(s) URL. */
function encodeSource(src) {
  if (/^(https?|s3):\/\//i.test(src)) return encodeURIComponent(src);
  return src.replace(/^\/+/, '').split('/').map((part) => encodeURIComponent(part).replace(/%3A/gi, ':')).join('/');
}

/** The path after `unsafe/` (or the signature) for an element's options and size. */
function cropPath(src, size, options) {
  const filters = [], segments = [];
  // A preset of the server's (`focal serve --preset NAME=filters:…`) first: the element's own
  // options then apply after it.
  if (options.preset) filters.push(`preset(${options.preset})`);
  for (const { attribute, filter, default: fallback, bare, segment } of CROP_OPTIONS) {
    const value = options[attribute];
    // A switch (`grayscale`) is on with no value; an attribute given as `on` is too.
    if (filter && bare && value != null && ['', 'on', 'true'].includes(value.toLowerCase())) filters.push(`${filter}()`);
    else if (filter && value) filters.push(`${filter}(${value})`);
    else if (filter && fallback != null && AUTO_FORMAT) filters.push(`${filter}(${fallback})`);
    else if (segment && value) segments.push(`${segment}:${value}/`);
  }
  return segments.join('') + `${size.width}x${size.height}/` + (options.detect ? 'smart/' : '') +
    (filters.length ? `filters:${filters.join(':')}/` : '') + encodeSource(src);
}

/**
 * A signing function for an endpoint that takes `POST {"paths": [...]}` and answers
 * `{"urls": [...]}` in the same order (Focal's own `/v1/sign` does, with its token). Paths asked
 * for in the same moment go in one request; answers are remembered.
 * @param {string | ((paths: string[]) => Promise<string[]>)} endpoint  the endpoint's URL, or a
 *   function that signs a batch itself
 * @param {RequestInit} [init]  extra fetch options, e.g. `{headers: {Authorization: ...}}`
 * @returns {(path: string) => Promise<string>}
 */
export function batchSigner(endpoint, init = {}) {
  const signBatch = typeof endpoint === 'function' ? endpoint : async (paths) => {
    const response = await fetch(endpoint, {
      ...init, method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(init.headers || {}) },
      body: JSON.stringify({ paths }),
    });
    if (!response.ok) throw await FocalError.from(response, 'sign');
    return (await response.json()).urls;
  };
  const known = new Map();
  let waiting = null;
  return (path) => {
    if (known.has(path)) return known.get(path);
    if (!waiting) {
      const batch = waiting = { paths: [], done: null };
      batch.done = Promise.resolve().then(async () => {
        waiting = null;
        const urls = await signBatch(batch.paths);
        if (!Array.isArray(urls) || urls.length !== batch.paths.length) {
          throw new FocalError(0, 'sign', 'the signer answered without one URL per path');
        }
        return urls;
      });
    }
    const batch = waiting, index = batch.paths.push(path) - 1;
    const url = batch.done.then((urls) => urls[index]);
    known.set(path, url);
    url.catch(() => known.delete(path));   // a failure is not remembered
    return url;
  };
}

const signers = new Map();   // signer URL → batchSigner

// ---------------------------------------------------------------------------------------------
// Markup that works without JavaScript

/** `{width, height}` for `width` at `aspect`: a multiple of p:q when the aspect is "p:q". */
function sizeAt(width, aspect) {
  const terms = String(aspect).split(/[:/x]/).map(Number);
  if (terms.length === 2 && terms.every((t) => Number.isInteger(t) && t > 0)) {
    const d = gcd(terms[0], terms[1]), p = terms[0] / d, q = terms[1] / d;
    const k = Math.max(1, Math.round(width / p));
    return { width: k * p, height: k * q };
  }
  const ratio = parseAspect(String(aspect));
  if (!ratio) throw new TypeError(`focal-img: aspect "${aspect}" is not a ratio such as 16:9 or 1.5`);
  return { width: Math.round(width), height: Math.max(1, Math.round(width / ratio)) };
}

/** The crop options of `options` (attribute names), as cropPath takes them. */
function optionsFrom(options = {}) {
  const out = {};
  for (const { attribute } of CROP_OPTIONS) out[attribute] = options[attribute] == null ? null : String(options[attribute]);
  out.preset = options.preset == null ? null : String(options.preset);
  out.detect = !['off', 'false', '0', 'no'].includes(String(options.detect ?? 'on').toLowerCase());
  return out;
}

/**
 * One crop URL per width, for static pages and server-side rendering.
 * @param {object} settings
 * @param {string} settings.src  the photo, as `<focal-img src>` takes it
 * @param {string | number} settings.aspect  the box's shape: "16:9", "4/5" or 1.5
 * @param {string} [settings.server='']  the Focal server's origin ('' for the page's own)
 * @param {number[]} [settings.widths=[320, 480, 640, 800, 1024, 1280, 1600, 1920]]  widths in pixels
 *   (rounded to a multiple of p for an aspect p:q, so that saved crops apply)
 * @param {object} [settings.options={}]  crop options by attribute name, e.g. `{zoom: 0.6, format: 'webp'}`
 * @param {(path: string) => string} [settings.url]  the URL of a path such as `320x180/smart/a.jpg`;
 *   default `{server}/unsafe/{path}` (give your signer for a server without unsafe URLs)
 * @param {string} [settings.version]  the crop version for this aspect (a frame's `version` in
 *   `POST /v1/plan`): each URL then carries `?v=` and is cached for a year by the browser
 * @returns {{width: number, height: number, url: string}[]}  narrowest first
 */
export function focalSources({ src, aspect, server = '', widths = DEFAULT_WIDTHS, options = {}, url, version } = {}) {
  const problem = sourceProblem(String(src ?? ''));
  if (!src || problem) throw new TypeError(`focal-img: src ${JSON.stringify(src)} refused: ${problem || 'empty'}`);
  const base = String(server).replace(/\/+$/, ''), crop = optionsFrom(options);
  const toURL = url || ((path) => `${base}/unsafe/${path}`);
  const seen = new Set();
  return [...widths].sort((a, b) => a - b).map((width) => sizeAt(width, aspect))
    .filter((size) => !seen.has(size.width) && seen.add(size.width))
    .map((size) => ({ ...size, url: versioned(toURL(cropPath(src, size, crop)), version) }));
}

/**
 * A frame's inline preview (`preview` of a `POST /v1/plan` frame: a `data:image/…;base64,` URI of
 * a few hundred bytes), or null for anything else: a preview never makes a request.
 */
function inlinePreview(value) {
  if (typeof value !== 'string') return null;
  // Over the cap (a server that left metadata in it): said in the console, not dropped silently.
  if (value.length > 4096) {
    console.warn(`focal-img: a preview of ${value.length} characters is over the 4096 kept; the placeholder stays plain`);
    return null;
  }
  return /^data:image\/(webp|jpeg|png|avif);base64,[A-Za-z0-9+/]+=*$/.test(value) ? value : null;
}

/**
 * `url` with `?v=VERSION` (a crop version from `X-Focal-Plan` or `POST /v1/plan`): the server
 * answers a URL that carries its current version as immutable, so the browser keeps it a year.
 */
function versioned(url, version) {
  if (!version || !/^[0-9a-f]{16}(\.\d+)?$/.test(version)) return url;
  return `${url}${url.includes('?') ? '&' : '?'}v=${version}`;
}

/**
 * A `srcset` value: each crop URL of `focalSources` with its width (`… 320w, … 640w`).
 * @param {object} settings  as for `focalSources`
 * @returns {string}
 */
export function focalSrcset(settings) {
  return focalSources(settings).map((source) => `${source.url} ${source.width}w`).join(', ');
}

const escapeHTML = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * `<focal-img …><img src srcset sizes width height loading alt></focal-img>`: an image that shows
 * with no JavaScript at all, which focal-img.js then enhances with the exact crop for its box.
 * @param {object} settings  as for `focalSources`, and:
 * @param {string} [settings.sizes='100vw']  the `<img sizes>`: the box's width in the layout (e.g.
 *   `(max-width: 700px) 25vw, 169px` for a card). Written as given: `auto, …` is not added, for
 *   with JavaScript off Chromium loads lazy images at once, sizes `auto` by the viewport before
 *   layout and then fetches the box's candidate too (two downloads, the first the largest)
 * @param {string} [settings.alt='']  the image's text alternative
 * @param {'lazy' | 'eager'} [settings.loading='lazy']  `eager` for an image above the fold
 * @param {'high' | 'low' | 'auto'} [settings.fetchpriority]  e.g. `high` for the page's main image
 * @param {string} [settings.preview]  the frame's inline preview (`preview` of a `POST /v1/plan`
 *   frame asked with `"previews": true`): shown under the image until it loads, no request
 * @returns {string}  HTML
 */
export function focalImgMarkup({ sizes = '100vw', alt = '', loading = 'lazy', fetchpriority, preview, ...settings } = {}) {
  const sources = focalSources(settings);
  // src (for browsers without srcset) and width/height (the shape, before the image loads).
  const fallback = sources.find((source) => source.width >= 640) || sources.at(-1);
  const host = { src: settings.src, server: settings.server || null, aspect: String(settings.aspect), loading,
    fetchpriority: fetchpriority || null, version: settings.version || null, preview: inlinePreview(preview) };
  for (const [name, value] of Object.entries(settings.options || {})) if (value != null) host[name] = String(value);
  const img = { src: fallback.url, srcset: sources.map((s) => `${s.url} ${s.width}w`).join(', '), sizes,
    width: fallback.width, height: fallback.height, loading, fetchpriority: fetchpriority || null, decoding: 'async', alt,
    // The preview under the image until it loads: the browser's scaling of 16 pixels blurs it.
    style: inlinePreview(preview) ? `background: url("${inlinePreview(preview)}") center / cover no-repeat` : null };
  const attributes = (map) => Object.entries(map).filter(([, v]) => v != null).map(([k, v]) => ` ${k}="${escapeHTML(v)}"`).join('');
  return `<focal-img${attributes(host)}><img${attributes(img)}></focal-img>`;
}

// ---------------------------------------------------------------------------------------------
// Fetching, with a page-wide memory for elements that have a cache-name

/** Resolves when `img` has loaded, rejects when it fails (`decode()` without waiting for the decode). */
function whenLoaded(img) {
  return new Promise((resolve, reject) => {
    const settle = (event) => {
      img.removeEventListener('load', settle); img.removeEventListener('error', settle);
      if (event.type === 'load' && img.naturalWidth) resolve(); else reject(new Error('not loaded'));
    };
    img.addEventListener('load', settle); img.addEventListener('error', settle);
  });
}

/** Lets go of an `<img>` not shown: a blob's memory is freed, a URL's request stopped. */
function dropImage(img) {
  if (img.src.startsWith('blob:')) URL.revokeObjectURL(img.src);
  else if (!img.isConnected) img.removeAttribute('src');
}

/** What went wrong, as `focal-error` reports it: an HTTP status (0 without one), a code, a message. */
class FocalError extends Error {
  constructor(status, code, message) { super(message); this.status = status; this.code = code; }

  /** From a failed response: Focal's JSON error body when there is one. */
  static async from(response, fallback = 'http') {
    let body = null;
    try { body = await response.json(); } catch { /* not JSON */ }
    return new FocalError(response.status, body?.code || `${fallback}.${response.status}`,
      body?.message || response.statusText || `HTTP ${response.status}`);
  }
}

/**
 * Finished crops by key ({url, plan, strategy, type} and, for one fetched past the caches, its
 * blob), least recently used first out, bounded in entries and in blob bytes.
 */
const memory = new Map();
let memoryBytes = 0;
/** Requests in flight by key (or URL), shared by the elements that want the same crop. */
const inflight = new Map();
/** Sources whose crops changed on the server (a saved crop): fetched revalidating from then on. */
const changed = new Set();

const blobSize = (result) => result.blob?.size ?? 0;

function remember(key, result) {
  if (blobSize(result) > MEMORY_BYTES / 4) return;
  forget(key);
  memory.set(key, result);
  memoryBytes += blobSize(result);
  for (const [old, value] of memory) {
    if (memoryBytes <= MEMORY_BYTES && memory.size <= MEMORY_ENTRIES) break;
    memory.delete(old);
    memoryBytes -= blobSize(value);
  }
}

function forget(key) {
  const old = memory.get(key);
  if (old) { memory.delete(key); memoryBytes -= blobSize(old); }
}

// What Focal says of a crop the browser loaded itself (an <img src>, no script can read its
// headers): the `focal-plan` and `focal-type` entries of its `Server-Timing`, which Resource
// Timing shows the page when the answer's `Timing-Allow-Origin` lets it.

/**
 * `{plan, type, at}` by crop URL, from the Resource Timing entries seen (`at`: the entry's start),
 * a bounded, oldest-out map.
 */
const timed = new Map();
const TIMED_ENTRIES = 512;

function noteTiming(entry) {
  const timing = entry.serverTiming || [];
  const desc = (name) => timing.find((metric) => metric.name === name)?.description || null;
  let plan = null;
  try { plan = JSON.parse(desc('focal-plan') || 'null'); } catch { /* cut or foreign */ }
  const said = { plan: plan && typeof plan === 'object' ? plan : null, type: desc('focal-type'), at: entry.startTime };
  const known = timed.get(entry.name);
  if (known && known.at > said.at) return known;   // an older entry never replaces a newer one
  timed.delete(entry.name);
  timed.set(entry.name, said);
  if (timed.size > TIMED_ENTRIES) timed.delete(timed.keys().next().value);
  return said;
}

/**
 * Whether an entry is an image's: only those were asked with the browser's image `Accept` header,
 * as the element's own crops are (a `fetch()` of the same URL may have been answered another type).
 */
const isImageEntry = (entry) => entry.initiatorType === 'img';

// An observer sees every entry, also once the page's timing buffer is full.
try {
  new PerformanceObserver((list) => { for (const entry of list.getEntries()) if (isImageEntry(entry) && entry.serverTiming?.length) noteTiming(entry); })
    .observe({ type: 'resource', buffered: true });
} catch { /* no Resource Timing here: plans stay unknown */ }

/**
 * `{plan, type}` of the crop at `url` the browser loaded as an image (the newest such entry), or
 * `{plan: null, type: null}` when none says anything: no `Timing-Allow-Origin` for this page, or
 * not a Focal answer. An entry is written as the response ends, which can be just after the load
 * event: it is waited for, briefly.
 */
async function timingOf(url) {
  for (let waited = 0; ; waited += 25) {
    const known = timed.get(url);
    if (known) return known;
    const entries = (globalThis.performance?.getEntriesByName?.(url, 'resource') || []).filter(isImageEntry);
    if (entries.length) return noteTiming(entries[entries.length - 1]);
    if (waited >= TIMING_WAIT_MS) return { plan: null, type: null };
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// What this browser decodes, probed once per page with a 1×1 image of each type.
/**
 * The output formats for the `Accept` header, from the server's format table (generated like
 * `CROP_OPTIONS`): the automatic format's choices first, best first, then the rest; each with a
 * 1x1 sample to decode when not every browser decodes it.
 */
const FORMATS = /*focal:formats*/[
  {"type": "image/avif", "sample": "data:image/avif;base64,AAAAHGZ0eXBhdmlmAAAAAGF2aWZtaWYxbWlhZgAAAOptZXRhAAAAAAAAACFoZGxyAAAAAAAAAABwaWN0AAAAAAAAAAAAAAAAAAAAAA5waXRtAAAAAAABAAAAImlsb2MAAAAAREAAAQABAAAAAAEOAAEAAAAAAAAAGAAAACNpaW5mAAAAAAABAAAAFWluZmUCAAAAAAEAAGF2MDEAAAAAamlwcnAAAABLaXBjbwAAABNjb2xybmNseAACAAIABoAAAAAMYXYxQ4EADAAAAAAUaXNwZQAAAAAAAAABAAAAAQAAABBwaXhpAAAAAAMICAgAAAAXaXBtYQAAAAAAAAABAAEEgYIDhAAAACBtZGF0EgAKCBgABggQEDQgMgobAAAAQACwE16A"},
  {"type": "image/webp", "sample": "data:image/webp;base64,UklGRhoAAABXRUJQVlA4TA4AAAAvAAAAAAcQEf0PRET/Aw=="},
  {"type": "image/jpeg", "sample": null},
  {"type": "image/png", "sample": null},
  {"type": "image/gif", "sample": null}
]/*/focal:formats*/;
let acceptHeader = null;

async function decodes(uri) {
  const img = new Image();
  img.src = uri;
  try { await img.decode(); return img.naturalWidth === 1; } catch { return false; }
}

/** The `Accept` header for crops: the image types this browser decodes, best first. */
function imageAccept() {
  acceptHeader ??= Promise.all(FORMATS.map((format) => format.sample === null || decodes(format.sample))).then((decoded) =>
    [...FORMATS.filter((_, i) => decoded[i]).map((format) => format.type), 'image/*;q=0.8', '*/*;q=0.5'].join(','));
  return acceptHeader;
}

/** One request: the image bytes and what Focal says about them. */
async function download(url, signal, revalidate, priority) {
  let response;
  try {
    const headers = { Accept: await imageAccept() };
    response = await fetch(url, { signal, headers, priority: priority || 'auto',
      cache: revalidate ? 'no-cache' : 'default', credentials: 'omit' });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new FocalError(0, 'network', 'the image server could not be reached');
  }
  if (!response.ok) throw await FocalError.from(response);
  const blob = await response.blob();
  if (!blob.type.startsWith('image/')) throw new FocalError(response.status, 'not_an_image', `the server answered ${blob.type || 'something'} instead of an image`);
  let plan = null;
  try { plan = JSON.parse(response.headers.get('X-Focal-Plan') || 'null'); } catch { /* absent or cut */ }
  const strategy = response.headers.get('X-Focal-Strategy') || plan?.strategy || null;
  return { blob, plan, strategy, url, type: blob.type };
}

/**
 * The crop at `url`. Elements that want the same URL at the same moment share one request (the
 * HTTP cache would not: concurrent fetches of one URL each go to the network). With a `key`, a
 * finished result is also kept in memory and a request in flight for the same key is joined. A
 * shared request is aborted only when every element waiting for it has given up.
 */
function load(url, { key, signal, revalidate, priority }) {
  // Only bytes kept in memory answer here (a crop remembered by URL alone is the browser's to load),
  // and nothing kept answers a request that must go past the caches.
  if (key && !revalidate) {
    const hit = memory.get(key);
    if (hit?.blob) { memory.delete(key); memory.set(key, hit); return Promise.resolve(hit); }
  }
  const share = key || `${revalidate ? 'revalidate' : 'default'}|${url}`;
  let entry = inflight.get(share);
  if (!entry) {
    const controller = new AbortController();
    entry = { controller, users: 0, promise: download(url, controller.signal, revalidate, priority) };
    const mine = entry;
    entry.promise.then((result) => { if (key) remember(key, result); }, () => {})
      .finally(() => { if (inflight.get(share) === mine) inflight.delete(share); });
    inflight.set(share, entry);
  }
  const shared = entry;
  shared.users++;
  return new Promise((resolve, reject) => {
    const leave = () => {
      if (--shared.users === 0) shared.controller.abort();
      reject(new DOMException('aborted', 'AbortError'));
    };
    if (signal.aborted) return leave();
    signal.addEventListener('abort', leave, { once: true });
    shared.promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', leave));
  });
}

// ---------------------------------------------------------------------------------------------
// Watching boxes and the pixel ratio: one observer for every element (set up in the class)

const elements = new Set();          // connected elements
const owners = new WeakMap();        // observed frame or host → its element
const crops = new WeakSet();         // the <img>s an element shows its fetched crops in (its own children)
// (Guarded so that the module also loads where there is no DOM, e.g. Node, for focalImgMarkup.)
const reducedMotion = globalThis.matchMedia?.('(prefers-reduced-motion: reduce)');

/** What is known of each source (by server|src), from plans: its size and its crop per shape. */
const sources = new Map();

function learn(identity, shape, plan) {
  const [width, height] = Array.isArray(plan?.image) ? plan.image : [];
  if (!(width > 0 && height > 0)) return;
  let known = sources.get(identity);
  if (!known) sources.set(identity, known = { image: null, crops: new Map(), versions: new Map() });
  // The crop version of this shape (content and saved crop): later requests carry it (`?v=`).
  if (shape && typeof plan.version === 'string') known.versions.set(shape, plan.version);
  known.image = { width, height };
  const crop = Array.isArray(plan.crop) ? plan.crop : [];
  if (shape && crop[2] > 0 && crop[3] > 0) known.crops.set(shape, { width: crop[2], height: crop[3] });
}

/** The crop version known for a photo at a shape (learned from an answer), or null. */
function versionOf(identity, shape) {
  return (shape && sources.get(identity)?.versions?.get(shape)) || null;
}

/** The most the source holds for a box of this shape: its crop when seen, else the image's fit. */
function limitFor(identity, shape, aspect) {
  const known = sources.get(identity);
  if (!known) return null;
  return (shape && known.crops.get(shape)) || fitRatio(aspect, known.image);
}

/**
 * Makes `url` an `<img>`'s only candidate, at density 1: a srcset left in place would win over
 * src, and Chromium keeps the density of the candidate it last chose from a srcset.
 */
function pointAt(img, url) {
  // In a <picture>, the <source> whose candidate shows is pointed too (a matching source wins
  // over the <img>'s own srcset); the others keep their art direction for other layouts.
  if (img.parentElement?.localName === 'picture') {
    const current = img.currentSrc;
    for (const source of img.parentElement.querySelectorAll(':scope > source')) {
      const urls = parseSrcset(source.getAttribute('srcset') || '').map((c) => {
        try { return new URL(c.url, document.baseURI).href; } catch { return null; }
      });
      if (current && urls.includes(current)) { source.srcset = url; source.removeAttribute('sizes'); }
    }
  }
  // The one candidate first: a `sizes` removed while the old srcset is there would have the
  // browser choose (and fetch) again from it.
  img.srcset = url;
  img.src = url;
  img.removeAttribute('sizes');
}

/** Whether any of `element` is inside the viewport. */
function onScreen(element) {
  const r = element.getBoundingClientRect();
  return r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
}

// ---------------------------------------------------------------------------------------------
// The element

const STYLE = `
  :host { display: block; position: relative; overflow: hidden; contain: paint;
          background: var(--focal-img-background, rgb(128 128 128 / 0.12)); }
  :host([hidden]) { display: none; }
  .frame { position: absolute; inset: 0; }
  .frame img { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: cover;
               border-radius: inherit; display: block; }
  ::slotted(img.crop) { transition: opacity var(--focal-img-fade, ${FADE_MS}ms) ease-out; }
  img.placeholder:not([src]), img.fallback:not([src]), img[hidden] { display: none; }
  img.placeholder.preview { filter: blur(var(--focal-img-preview-blur, 12px)); transform: scale(1.08); }
  ::slotted(img) { display: block; position: relative; z-index: 1; width: 100%; height: 100%;
                   object-fit: cover; border-radius: inherit; }
  ::slotted(picture) { display: contents; }
  @media (prefers-reduced-motion: reduce) { ::slotted(img.crop) { transition: none; } }
`;

export class FocalImg extends (globalThis.HTMLElement ?? class {}) {
  static observedAttributes = [...REQUEST_ATTRIBUTES, 'alt', 'placeholder', 'preview', 'fallback', 'aspect', 'loading'];

  #frame; #placeholder; #fallback; #slot; #hostStyle; #internals;
  #box = { width: 0, height: 0 };   // the frame's CSS size
  #wanted = null;                     // key of the request in flight or shown
  #seq = 0;                           // number of the newest request
  #controller = null;
  #shown = null;                      // what is on screen: {identity, url, width, height, plan, strategy}
  #layers = [];                       // shown <img>s, newest last, each with its object URL
  #pending = null;                    // the first crop's <img>, in place while it loads
  #scheduled = false;
  #revalidate = false;                // the next request revalidates (after refresh())
  #state = 'empty';
  #sign = null;
  #near = false;                      // within LAZY_MARGIN of the viewport once (or eager)
  #previewFor = null;                 // the identity whose preview was asked for (placeholder="preview")
  #img = null;                        // the light-DOM <img> being enhanced, if any
  #slotted = null;                    // what shows it: that <img>, or the <picture> around it
  #imgFor = null;                     // the identity (server|src) that <img> shows
  #children = null;                   // watches for that <img> coming and going

  constructor() {
    super();
    this.#internals = this.attachInternals?.();
  }

  /**
   * The shadow root (placeholder, fallback, fetched crops), made on first need. An element that
   * enhances an `<img>` needs none while that image shows: attaching one lays the `<img>` out
   * again, which Chromium counts as a later paint of the page's largest image (LCP).
   */
  #root() {
    if (this.#frame) return;
    // Manual slots: only an <img> child is ever shown, never other children (text for old browsers).
    const root = this.attachShadow({ mode: 'open', slotAssignment: 'manual' });
    root.innerHTML = `<style>${STYLE}</style><style class="host"></style>
      <div class="frame" part="frame"><img class="placeholder" part="placeholder" alt=""><img class="fallback" part="fallback" alt="" hidden></div><slot></slot>`;
    this.#frame = root.querySelector('.frame');
    this.#placeholder = root.querySelector('.placeholder');
    this.#fallback = root.querySelector('.fallback');
    this.#slot = root.querySelector('slot');
    this.#hostStyle = root.querySelector('style.host');
    for (const name of ['placeholder', 'fallback', 'aspect']) this.#reflect(name, this.getAttribute(name));
    if (this.#slotted) this.#slot.assign(this.#slotted);
    if (this.isConnected) {
      // The box is measured on the frame from now on.
      FocalImg.#resizes.unobserve(this);
      owners.set(this.#frame, this);
      FocalImg.#resizes.observe(this.#frame);
    }
  }

  /** Shows a presentational attribute in the shadow root. */
  #reflect(name, value) {
    if (name === 'placeholder' || name === 'preview') {
      // An inline preview (`preview`, as /v1/plan and the helpers give it) shows at once, blurred,
      // with no request. Else "preview" is not an image: the preview's URL is set once the
      // frame's size is known.
      const inline = inlinePreview(this.getAttribute('preview'));
      const placeholder = this.getAttribute('placeholder');
      const preview = !!inline || placeholder === 'preview';
      this.#placeholder.classList.toggle('preview', preview);
      if (inline) this.#placeholder.setAttribute('src', inline);
      else placeholder && !preview ? this.#placeholder.setAttribute('src', placeholder) : this.#placeholder.removeAttribute('src');
    }
    else if (name === 'fallback') value ? this.#fallback.setAttribute('src', value) : this.#fallback.removeAttribute('src');
    else if (name === 'aspect') {
      const ratio = parseAspect(value);
      this.#hostStyle.textContent = ratio ? `:host { aspect-ratio: ${ratio}; height: auto; }` : '';
    }
  }

  // --- public API ---

  /** `async (path) => url`: signs `WxH/smart/.../src` for a server without unsafe URLs. */
  get sign() { return this.#sign; }
  set sign(fn) { this.#sign = typeof fn === 'function' ? fn : null; this.#schedule(true); }

  /** 'empty' | 'loading' | 'loaded' | 'error'. */
  get state() { return this.#state; }
  /** The URL of the crop on screen. */
  get currentSrc() { return this.#shown?.url ?? ''; }
  /** The size in pixels of the crop on screen. */
  get naturalWidth() { return this.#shown?.width ?? 0; }
  get naturalHeight() { return this.#shown?.height ?? 0; }
  /**
   * The plan of the crop on screen (`X-Focal-Plan`, or its `Server-Timing` copy for a crop the
   * browser loaded itself), or null: always for an enhanced `<img>`, and for a server of another
   * origin whose `Timing-Allow-Origin` leaves this page out.
   */
  get plan() { return this.#shown?.plan ?? null; }

  /**
   * Asks again, past every cache: for after a crop of this image was saved or reset on the
   * server. Crops of the same source requested later (other sizes) also revalidate.
   */
  refresh() {
    changed.add(this.#identity());
    sources.get(this.#identity())?.versions?.clear();
    const name = this.getAttribute('cache-name');
    if (name) for (const key of [...memory.keys()]) if (key.startsWith(this.#memoryPrefix(name))) forget(key);
    this.#revalidate = true;
    this.#schedule(true);
  }

  /** Refreshes every element showing `src` (every element when `src` is not given). */
  static refresh(src) {
    for (const element of elements) if (src == null || element.getAttribute('src') === src) element.refresh();
  }

  // --- lifecycle ---

  connectedCallback() {
    elements.add(this);
    owners.set(this, this);
    this.#children ??= new MutationObserver(() => this.#adopt());
    this.#children.observe(this, { childList: true });
    this.#adopt();
    if (!this.#img) this.#root();
    if (this.#frame) owners.set(this.#frame, this);
    FocalImg.#resizes.observe(this.#frame ?? this);
    this.#watchNearness();
    this.#describe();
    this.#schedule();
  }

  disconnectedCallback() {
    // Moving the element fires disconnect then connect: only a real removal lets go.
    queueMicrotask(() => {
      if (this.isConnected) return;
      elements.delete(this);
      if (this.#frame) FocalImg.#resizes.unobserve(this.#frame);
      FocalImg.#resizes.unobserve(this);
      FocalImg.#nearness?.unobserve(this);
      this.#children?.disconnect();
      this.#abort();
      this.#wanted = null;
      this.#seq++;
      this.#clearLayers();
      this.#shown = null;
      this.#setState('empty');
    });
  }

  attributeChangedCallback(name, old, value) {
    if (old === value) return;
    if (name === 'alt') { this.#describe(); for (const layer of [...this.#layers, this.#pending]) if (layer) layer.alt = value ?? ''; }
    else if (name === 'placeholder' || name === 'preview' || name === 'fallback' || name === 'aspect') {
      if (this.#frame) this.#reflect(name, value);
      if (name === 'placeholder' && value === 'preview') { this.#previewFor = null; this.#schedule(true); }
    } else if (name === 'loading') {
      // Only when it is requested changes, not what: nothing is asked again.
      if (this.isConnected) { this.#watchNearness(); this.#schedule(); }
    } else this.#schedule(true);
  }

  // --- internals ---

  static #resizes = typeof ResizeObserver === 'function' && new ResizeObserver((entries) => {
    for (const entry of entries) {
      const element = owners.get(entry.target);
      if (!element) continue;
      element.#box = { width: entry.contentRect.width, height: entry.contentRect.height };
      element.#schedule();
    }
  });

  /** Lazy elements: nothing is requested until the element comes within LAZY_MARGIN of the viewport. */
  static #nearness = typeof IntersectionObserver === 'function' ? new IntersectionObserver((entries) => {
    for (const entry of entries) {
      const element = owners.get(entry.target);
      if (!element || !entry.isIntersecting) continue;
      element.#near = true;
      FocalImg.#nearness.unobserve(element);
      element.#schedule();
    }
  // scrollMargin widens the viewport and every scrolling container (a strip of thumbnails) alike;
  // where it is known, rootMargin is left out, since Chromium adds the two up for the viewport.
  }, 'scrollMargin' in IntersectionObserver.prototype ? { scrollMargin: LAZY_MARGIN } : { rootMargin: LAZY_MARGIN }) : null;

  #watchNearness() {
    if (this.#near) return;
    if (this.getAttribute('loading') === 'eager' || !FocalImg.#nearness) { this.#near = true; FocalImg.#nearness?.unobserve(this); }
    else FocalImg.#nearness.observe(this);
  }

  /** A new devicePixelRatio (browser zoom, another screen): every element asks again. */
  static #ratioQuery = null;
  static #watchPixelRatio() {
    FocalImg.#ratioQuery?.removeEventListener('change', FocalImg.#watchPixelRatio);
    FocalImg.#ratioQuery = matchMedia(`(resolution: ${devicePixelRatio}dppx)`);
    FocalImg.#ratioQuery.addEventListener('change', FocalImg.#watchPixelRatio);
    for (const element of elements) element.#schedule();
  }
  static { if (globalThis.matchMedia) FocalImg.#watchPixelRatio(); }

  /**
   * Takes the first `<img>` child, or the `<img>` of the first `<picture>` child, as the image to
   * enhance (and lets go of a removed one). A `<picture>` keeps its sources: the browser picks
   * among them as it would without the element (art direction, formats), and only the source it
   * picked is pointed at an exact crop when its candidate does not fit the box.
   */
  #adopt() {
    // The element's own crops are its children too, but not the page's image.
    const slotted = [...this.children].find((child) => (child.localName === 'img' && !crops.has(child))
      || (child.localName === 'picture' && child.querySelector(':scope > img'))) || null;
    const img = slotted?.localName === 'picture' ? slotted.querySelector(':scope > img') : slotted;
    if (img === this.#img) return;
    this.#img = img;
    this.#slotted = slotted;
    // The <img> of a <picture> is not reached by ::slotted(): lifted over the shadow root's
    // layers (placeholder, fallback) here, as ::slotted(img) lifts a plain one.
    if (img && slotted !== img) Object.assign(img.style, { position: 'relative', zIndex: '1' });
    this.#imgFor = this.#identity();
    // An <img> child shows without a shadow root; anything else needs one.
    if (this.#frame || (!img && this.isConnected)) {
      this.#root();
      this.#slot.assign(...(slotted ? [slotted] : []));
    }
    this.#clearLayers();
    this.#shown = null;
    this.#describe();
    this.#schedule(true);
  }

  /** Runs #update once after the current task's changes, however many there were. */
  #schedule(force = false) {
    if (force) this.#wanted = null;
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => { this.#scheduled = false; this.#update(); });
  }

  #identity() { return `${this.#server()}|${this.getAttribute('src') ?? ''}`; }
  #server() { return (this.getAttribute('server') || '').replace(/\/+$/, ''); }
  #memoryPrefix(name) { return `${this.#server()}|name:${name}|`; }

  #options() {
    const options = {};
    // An empty attribute is absent, except a switch's (`<focal-img grayscale>`), which it turns on.
    for (const { attribute, bare } of CROP_OPTIONS) {
      const value = this.getAttribute(attribute)?.trim();
      options[attribute] = value || (bare && value === '' ? '' : null);
    }
    options.preset = this.getAttribute('preset')?.trim() || null;
    // detect is the URL's smart/: on unless off (or false, 0, no), as the option table reads it.
    options.detect = !['off', 'false', '0', 'no'].includes((options.detect || 'on').toLowerCase());
    return options;
  }

  /** Device pixels per CSS pixel for requests: devicePixelRatio, at most `max-dpr` (default 2). */
  #pixelRatio() {
    const most = Number(this.getAttribute('max-dpr'));
    return Math.min(devicePixelRatio || 1, most > 0 ? most : DEFAULT_MAX_DPR);
  }

  /** Aborts the request in flight; its first crop, in place while it loads, goes with it. */
  #abort() {
    this.#controller?.abort();
    this.#controller = null;
    this.#pending?.remove();
    this.#pending = null;
  }

  /** Stops whatever is in flight and shows nothing (or the placeholder). */
  #clear(state = 'empty') {
    this.#abort();
    this.#wanted = null; this.#seq++;
    this.#clearLayers(); this.#shown = null;
    this.#dropPreview(); this.#previewFor = null;
    this.#setState(state);
  }

  /** Requests the crop for the current box and settings, unless it is already wanted. */
  async #update() {
    if (!this.isConnected) return;
    const src = this.getAttribute('src');
    const identity = this.#identity();
    if (!src) return this.#clear();
    // Another photo: the previous one goes at once rather than standing under the new alt.
    if (this.#shown && this.#shown.identity !== identity) this.#clear();
    if (this.#img && this.#imgFor !== identity) {
      // Hidden rather than emptied, so that its box keeps its size. A <picture>'s sources were
      // the previous photo's: they go, and the exact crops of this one take their place.
      this.#img.style.visibility = 'hidden';
      if (this.#slotted !== this.#img) {
        // Its own srcset first: with the sources gone the browser would choose (and fetch) from it.
        this.#img.removeAttribute('srcset'); this.#img.removeAttribute('sizes');
        for (const source of this.#slotted.querySelectorAll(':scope > source')) source.remove();
      }
      this.#imgFor = identity;
    }
    const problem = sourceProblem(src);
    if (problem) {
      if (this.#wanted === `refused|${identity}`) return;
      this.#clear('error');
      this.#wanted = `refused|${identity}`;
      this.#fail(new FocalError(0, 'src.refused', `src "${src}" refused: ${problem}`), identity);
      return;
    }
    // display: none, or a box without height: nothing to fit, nothing requested.
    if (!this.#near) return;
    // Before the first resize report (the next rendering step), the box is read from the layout
    // itself: an element in view asks for its crop as soon as its module runs, a frame earlier.
    if (!(this.#box.width > 0 && this.#box.height > 0) && this.#frame) {
      const rect = this.#frame.getBoundingClientRect();
      if (rect.width > 0 && rect.height > 0) this.#box = { width: rect.width, height: rect.height };
    }
    const { width, height } = this.#box;
    const ratio = width > 0 && height > 0 ? simpleRatio(width, height) : null;
    const options = this.#options();
    const shape = ratio ? `${ratio.join(':')}|${JSON.stringify(options)}` : null;
    const limit = width > 0 && height > 0 ? limitFor(identity, shape, width / height) : null;
    const ladder = ladderSides(this.getAttribute('ladder'));
    const size = ladder.length ? ladderSize(width, height, this.#pixelRatio(), ladder, limit)
      : frameSize(width, height, this.#pixelRatio(), Number(this.getAttribute('step')) || DEFAULT_STEP, limit);
    if (!size) return;
    const path = cropPath(src, size, options);
    const name = this.getAttribute('cache-name');
    // The source itself is not part of a named key: the name says which image this is.
    const key = name ? this.#memoryPrefix(name) + path.slice(0, path.length - encodeSource(src).length) : null;
    const img = this.#img;
    const wanted = `${identity}|${path}|${img ? 'img' : 'fetch'}`;
    if (wanted === this.#wanted) return;
    this.#wanted = wanted;
    // Nothing of this photo on screen. An enhanced <img> is hidden only after a new src: before
    // that it is the markup's own image, which gets no shadow root (a later LCP) and no preview.
    if (this.getAttribute('placeholder') === 'preview' && !inlinePreview(this.getAttribute('preview'))
        && this.#shown?.identity !== identity && !(img && img.style.visibility !== 'hidden')) this.#preview(src, size, options, identity);

    this.#abort();
    const controller = this.#controller = new AbortController();
    const seq = ++this.#seq;
    const revalidate = this.#revalidate || this.hasAttribute('revalidate') || changed.has(identity);
    if (this.#revalidate && key) forget(key);
    this.#revalidate = false;
    this.#setState('loading');
    let picture = null;
    try {
      // The version this page knows for the box's shape: learned from an earlier answer, or the
      // `version` attribute (the markup helpers' `?v=`) when the box has the `aspect` it was
      // written for. Such a URL is answered immutable, so the browser keeps it.
      const aspect = parseAspect(this.getAttribute('aspect'));
      const markupVersion = aspect && ratio && Math.abs(ratio[0] / ratio[1] - aspect) <= 0.01 * aspect ? this.getAttribute('version') : null;
      // After refresh() nothing of that is trusted: the answer brings the version now in force.
      const url = versioned(await this.#url(path), revalidate ? null : versionOf(identity, shape) || markupVersion);
      if (seq !== this.#seq) return;
      if (img) {
        await this.#enhance(img, url, controller.signal, identity, size);
        if (seq === this.#seq) this.#controller = null;
        return;
      }
      const priority = this.getAttribute('fetchpriority');
      const hit = key ? memory.get(key) : null;
      let result;
      if (revalidate || hit?.blob) {
        // Past every cache: a request of our own (an <img> could be given the document's copy).
        result = await load(url, { key, signal: controller.signal, revalidate, priority });
        if (seq !== this.#seq) return;
        picture = await this.#decode(result.blob);
      } else {
        let loaded;
        try {
          loaded = await this.#loadURL(hit?.url || url, controller.signal, priority);
        } catch (error) {
          // A remembered URL that no longer loads (removed, an old version, a rotated key) is
          // forgotten, so that the next try asks for the URL of now.
          if (hit && error?.name !== 'AbortError') forget(key);
          throw error;
        }
        picture = loaded.img;
        result = hit || { url: loaded.url, plan: loaded.plan, strategy: loaded.plan?.strategy || null, type: loaded.type };
        // Remembered only with its plan: a crop whose plan this page could not read is asked again.
        if (hit) { memory.delete(key); memory.set(key, hit); } else if (key && result.plan) remember(key, result);
      }
      if (seq !== this.#seq) return;
      learn(identity, shape, result.plan);
      // Only the newest request may show its image: anything older is dropped here.
      if (seq !== this.#seq) return;
      this.#show(picture, { ...result, identity });
      picture = null;
      this.#controller = null;
    } catch (error) {
      if (seq !== this.#seq || error?.name === 'AbortError') return;
      this.#controller = null;
      this.#fail(error instanceof FocalError ? error
        : new FocalError(error?.status ?? 0, error?.code ?? 'failed', String(error?.message || error)), identity);
    } finally {
      if (picture) { if (!this.#layers.includes(picture)) picture.remove(); dropImage(picture); }
    }
  }

  /**
   * An enhanced `<img>`: its current image stays until the crop at `url` has loaded and decoded
   * (the browser's own request, with its own Accept header and cache), then the `<img>` shows it.
   * An image the markup already loaded that has the box's shape and enough pixels for `size` is
   * kept: a smart crop of the same shape is the same crop, so a second download would add bytes,
   * not picture.
   */
  async #enhance(img, url, signal, identity, size) {
    const settled = () => new Promise((resolve) => {
      const done = () => { img.removeEventListener('load', done); img.removeEventListener('error', done); resolve(); };
      img.addEventListener('load', done); img.addEventListener('error', done);
      signal.addEventListener('abort', done, { once: true });
    });
    const inPicture = img.parentElement?.localName === 'picture';
    if (!img.complete && !onScreen(img) && !img.currentSrc && !inPicture && !autoSizedFits(img, size)) {
      // Nothing chosen yet and out of view (a lazy image the browser has not started to fetch):
      // the <img> is pointed at the exact crop at once, one download instead of two, and the
      // browser still fetches it when it comes into view. One whose candidate is already on its
      // way (within the browser's lazy-loading margin), or that `sizes="auto"` will pick well
      // for the box, is let load, and kept if it fits.
      pointAt(img, url);
      await settled();
      if (signal.aborted) throw new DOMException('aborted', 'AbortError');
      if (!img.naturalWidth) throw new FocalError(0, 'image', `the crop ${url} did not load`);
      return this.#enhanced(img, url, img, identity);
    }
    // The markup's own image first: the exact crop never competes with it for the first paint.
    if (!img.complete) await settled();
    if (signal.aborted) throw new DOMException('aborted', 'AbortError');
    if (img.currentSrc === url && img.naturalWidth) return this.#enhanced(img, url, img, identity);   // already exact
    // (A hidden <img> still shows the previous photo: a new src always loads its own crop.)
    if (img.style.visibility !== 'hidden' && fitsFrame(img, size)) return this.#enhanced(img, img.currentSrc, img, identity);
    const next = new Image();
    next.decoding = 'async';
    if (img.crossOrigin != null) next.crossOrigin = img.crossOrigin;
    next.referrerPolicy = img.referrerPolicy;
    const priority = this.getAttribute('fetchpriority');
    if (priority) next.fetchPriority = priority;
    const stop = () => { next.src = ''; };
    signal.addEventListener('abort', stop, { once: true });
    next.src = url;
    try {
      await next.decode();
    } catch {
      if (signal.aborted) throw new DOMException('aborted', 'AbortError');
      throw new FocalError(0, 'image', `the crop ${url} did not load`);
    } finally {
      signal.removeEventListener('abort', stop);
    }
    if (signal.aborted) throw new DOMException('aborted', 'AbortError');
    pointAt(img, url);
    this.#enhanced(img, url, next, identity);
  }

  /**
   * `placeholder="preview"`: a crop of the same frame at most PREVIEW_SIDE pixels long (a few
   * hundred bytes, the same signing and format), shown blurred until the crop itself shows. Asked
   * for once per photo; a failure shows nothing, since the crop's own request reports it.
   */
  async #preview(src, size, options, identity) {
    if (this.#previewFor === identity) return;
    this.#root();
    this.#previewFor = identity;
    this.#placeholder.removeAttribute('src');
    const ladder = ladderSides(this.getAttribute('ladder'));
    const tiny = ladder.length ? ladderSize(size.width, size.height, 1, ladder.slice(0, 1))
      : frameSize(size.width, size.height, PREVIEW_SIDE / Math.max(size.width, size.height), 1);
    try {
      const url = await this.#url(cropPath(src, tiny, options));
      if (this.#previewFor === identity && this.#shown?.identity !== identity) this.#placeholder.src = url;
    } catch { /* reported by the crop's request */ }
  }

  /**
   * Puts `img` in the element as a crop layer: an `<img class="crop">` child with the element's
   * `alt`, slotted over the placeholder with `shown` (the layers, oldest first). Its layout is
   * inline, so that a page's own `img` rules (`height: auto`) do not undo it.
   */
  #place(img, shown) {
    img.className = 'crop';
    img.alt = this.getAttribute('alt') ?? '';
    crops.add(img);
    Object.assign(img.style, { position: 'absolute', inset: '0', width: '100%', height: '100%', maxWidth: 'none',
      margin: '0', objectFit: 'cover', borderRadius: 'inherit', display: 'block', zIndex: '1' });
    this.#root();
    this.append(img);
    this.#slot.assign(...(this.#slotted ? [this.#slotted] : []), ...shown);
  }

  /** The crop shows: a preview under it goes (a crop with transparency would show it through). */
  #dropPreview() {
    if (this.#placeholder?.classList.contains('preview')) this.#placeholder.removeAttribute('src');
  }

  /** The enhanced `<img>` shows `url` (whose pixels `loaded` holds): said with `focal-load`. */
  #enhanced(img, url, loaded, identity) {
    img.style.visibility = '';
    if (this.#fallback) this.#fallback.hidden = true;
    // The inline preview the helpers put under the image is not needed once it shows (and would
    // show through a transparent one).
    if (img.style.backgroundImage.startsWith('url("data:image/')) img.style.removeProperty('background');
    this.#dropPreview();
    const width = loaded.naturalWidth, height = loaded.naturalHeight;
    this.#shown = { identity, url, width, height, plan: null, strategy: null };
    this.#setState('loaded');
    this.dispatchEvent(new CustomEvent('focal-load', { bubbles: true, composed: true, detail: {
      url, width, height, type: null, strategy: null, plan: null, subjects: [],
    } }));
  }

  /** The URL for a path: signed by `sign`, by the `signer` endpoint, or `unsafe/`. */
  async #url(path) {
    const server = this.#server();
    let url;
    if (this.#sign) url = await this.#sign(path);
    else if (this.getAttribute('signer')) {
      const endpoint = new URL(this.getAttribute('signer'), document.baseURI).href;
      if (!signers.has(endpoint)) signers.set(endpoint, batchSigner(endpoint));
      url = await signers.get(endpoint)(path);
    } else url = `/unsafe/${path}`;
    if (typeof url !== 'string' || !url) throw new FocalError(0, 'sign', 'the signer gave no URL');
    return new URL(/^https?:\/\//i.test(url) ? url : server + (url.startsWith('/') ? url : `/${url}`), document.baseURI).href;
  }

  /**
   * The crop at `url` as the browser loads an `<img src>` (its own request, cache and `Accept`
   * header, a real URL for LCP and "copy image address"); the plan from its Resource Timing
   * entry. When it does not load, the same URL is fetched once to learn why (Focal's error
   * code), and shown from that answer if it succeeds.
   *
   * The element's first crop (nothing shown yet, no fade) is put in place as it is requested and
   * paints as it arrives, as a plain `<img>` does: waiting for `decode()` and then inserting it
   * put the largest paint some 15 ms later, a frame or two. A crop that replaces another is
   * decoded first, so that the swap does not flash.
   */
  async #loadURL(url, signal, priority) {
    const img = document.createElement('img');
    img.decoding = 'async';
    if (priority) img.fetchPriority = priority;
    const stop = () => { img.remove(); img.removeAttribute('src'); };
    signal.addEventListener('abort', stop, { once: true });
    img.src = url;
    const first = this.#layers.length === 0 && this.getAttribute('fade') !== 'on';
    if (first) { this.#pending = img; this.#place(img, [img]); }
    try {
      if (first) await whenLoaded(img);
      else await img.decode();
    } catch {
      img.remove();
      if (this.#pending === img) this.#pending = null;
      if (signal.aborted) throw new DOMException('aborted', 'AbortError');
      const result = await download(url, signal, false, priority);
      return { img: await this.#decode(result.blob), url, plan: result.plan, type: result.type };
    } finally {
      signal.removeEventListener('abort', stop);
    }
    if (signal.aborted) throw new DOMException('aborted', 'AbortError');
    const { plan, type } = await timingOf(url);
    return { img, url, plan, type };
  }

  /** An <img> holding the blob, decoded so that showing it does not flash. */
  async #decode(blob) {
    const img = document.createElement('img');
    img.src = URL.createObjectURL(blob);
    try {
      await img.decode();
    } catch {
      URL.revokeObjectURL(img.src);
      throw new FocalError(200, 'decode', 'the image could not be decoded');
    }
    return img;
  }

  /**
   * Shows a fetched crop in an `<img class="crop">` of the element's own, a child in the page's
   * DOM (slotted over the placeholder): the page's largest paint names it and a crawler that runs
   * the script reads it with its `alt`. Its layout is inline, so that a page's own `img` rules
   * (`height: auto`) do not undo it; `focal-img > img.crop` styles it.
   */
  #show(img, result) {
    // A fade only where one crop replaces another (a resize): the first crop shows at once, so
    // that the page's largest paint is the image's own load. `fade="on"` fades it in too.
    const setting = this.getAttribute('fade');
    const fade = !reducedMotion?.matches && (setting === 'on' || (setting !== 'off' && this.#layers.length > 0));
    if (fade) img.style.opacity = '0';
    this.#layers.push(img);
    if (this.#pending === img) this.#pending = null;
    if (img.parentNode !== this) this.#place(img, this.#layers);
    this.#fallback.hidden = true;
    const older = this.#layers.slice(0, -1);
    const dropOlder = () => {
      for (const layer of older) { layer.remove(); dropImage(layer); }
      this.#layers = this.#layers.filter((layer) => !older.includes(layer));
    };
    if (fade) {
      img.getBoundingClientRect();   // start the transition from 0
      img.style.opacity = '1';
      setTimeout(() => { dropOlder(); if (this.#layers.includes(img)) this.#dropPreview(); }, FADE_MS + 60);
    } else { dropOlder(); this.#dropPreview(); }

    this.#shown = { identity: result.identity, url: result.url, width: img.naturalWidth, height: img.naturalHeight,
      plan: result.plan, strategy: result.strategy };
    this.#setState('loaded');
    const subjects = (result.plan?.subjects || []).map(([kind, x, y, width, height, confidence]) => ({ kind, x, y, width, height, confidence }));
    this.dispatchEvent(new CustomEvent('focal-load', { bubbles: true, composed: true, detail: {
      url: result.url, width: img.naturalWidth, height: img.naturalHeight, type: result.type,
      strategy: result.strategy, plan: result.plan, subjects,
    } }));
  }

  /**
   * A failed request. The crop of the same image stays when there is one (a failed resize is
   * not worth a blank box); otherwise the `fallback` image shows, or else the placeholder. A
   * refusal by the server (4xx) or of `src` is also reported on the console.
   */
  #fail(error, identity) {
    if (this.#shown?.identity !== identity) {
      this.#clearLayers(); this.#shown = null; this.#dropPreview();
      if (this.getAttribute('fallback')) {
        this.#root();
        this.#fallback.hidden = false;
        // An enhanced <img> that shows nothing (its own image failed too) gives way to it.
        if (this.#img && (this.#img.style.visibility === 'hidden' || (this.#img.complete && !this.#img.naturalWidth))) {
          this.#img.style.visibility = 'hidden';
        }
      }
    }
    if (error.code === 'src.refused' || (error.status >= 400 && error.status < 500)) {
      console.warn(`<focal-img src="${this.getAttribute('src')}">: ${error.message} (${error.code})`);
    }
    if (error.code !== 'src.refused') this.#wanted = null;   // the next resize or refresh tries again
    this.#setState('error');
    this.dispatchEvent(new CustomEvent('focal-error', { bubbles: true, composed: true, detail: {
      status: error.status, code: error.code, message: error.message,
    } }));
  }

  #clearLayers() {
    for (const layer of this.#layers) { layer.remove(); dropImage(layer); }
    this.#layers = [];
    if (this.#fallback) this.#fallback.hidden = true;
  }

  #setState(state) {
    this.#state = state;
    const states = this.#internals?.states;
    if (states) {
      try { for (const s of ['empty', 'loading', 'loaded', 'error']) states.delete(s); states.add(state); } catch { /* older browsers */ }
    }
    this.toggleAttribute('aria-busy', state === 'loading');
  }

  /**
   * `alt` becomes the accessible name of an image; `alt=""` marks it decorative. An enhanced
   * `<img>` speaks for itself (its own `alt`): the element then has no role of its own.
   */
  #describe() {
    const alt = this.#img ? null : this.getAttribute('alt');
    const role = this.#img ? null : alt === '' ? 'presentation' : 'img';
    if (this.#internals && 'role' in this.#internals) {
      this.#internals.role = role;
      this.#internals.ariaLabel = alt || null;
    } else {
      role ? this.setAttribute('role', role) : this.removeAttribute('role');
      alt ? this.setAttribute('aria-label', alt) : this.removeAttribute('aria-label');
    }
  }
}

if (globalThis.customElements && !customElements.get('focal-img')) customElements.define('focal-img', FocalImg);
