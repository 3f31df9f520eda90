// <focal-img>: an image that keeps faces, pets and people in view, whatever its box.
//
//   <script type="module" src="https://img.example/focal-img.js"></script>
//   <focal-img src="team.jpg" server="https://img.example" alt="Our team"></focal-img>
//
// The element measures its own CSS box, multiplies it by devicePixelRatio, rounds it up to a
// step (so that results stay cacheable) and asks a Focal server for the crop of exactly that
// size; it asks again whenever the box changes. The request in flight is aborted when a newer
// one starts, and a response that arrives after a newer request started is never shown. Every
// attribute is described in the README ("The <focal-img> element").
//
// Module exports: the element class, `frameSize` (the size the element requests for a box) and
// `batchSigner` (a signing function for a `/v1/sign`-style endpoint).

/** Default rounding step, in device pixels. */
const DEFAULT_STEP = 16;
/** The largest side ever requested; a larger box gets an image scaled up by the browser. */
const MAX_SIDE = 4096;
/** How long the new crop takes to fade in. */
const FADE_MS = 240;
/** Page-wide memory for elements that have a cache-name. */
const MEMORY_BYTES = 48 << 20;

/**
 * The crop options, from the server's option table: each one's attribute and URL filter (null for
 * `detect`, which is the URL's `smart/`). `focal serve` writes the table in place of the marker
 * when it serves this file, so the element takes every option the server does, and no other.
 */
const CROP_OPTIONS = /*focal:crop-options*/[];

/** Attributes that change which crop is requested. */
const REQUEST_ATTRIBUTES = [
  'src', 'server', 'step', 'signer', 'cache-name', 'revalidate', ...CROP_OPTIONS.map((option) => option.attribute),
];

// ---------------------------------------------------------------------------------------------
// Sizes

/**
 * The size, in device pixels, that an element of `width` × `height` CSS pixels requests.
 *
 * When the box is a simple ratio (16:9, 4:5, 1:1 ... within half a CSS pixel) the result has
 * exactly that ratio, so that a crop saved for that aspect applies, and its longer side moves
 * in steps of about `step`. Otherwise each side is rounded up to a multiple of `step`.
 * Nothing is larger than MAX_SIDE on a side.
 */
export function frameSize(width, height, dpr = 1, step = DEFAULT_STEP) {
  if (!(width > 0 && height > 0)) return null;
  step = Math.max(1, Math.round(step) || DEFAULT_STEP);
  const tw = width * dpr - 1e-6, th = height * dpr - 1e-6;   // 320.0000001 is 320
  const ratio = simpleRatio(width, height);
  if (ratio) {
    const [p, q] = ratio, long = Math.max(p, q);
    const unit = Math.ceil(step / long);                       // k moves in steps of `unit`
    let k = unit * Math.ceil(Math.max(tw / p, th / q) / unit);
    k = Math.max(1, Math.min(k, Math.floor(MAX_SIDE / long)));
    return { width: k * p, height: k * q };
  }
  let w = step * Math.ceil(tw / step), h = step * Math.ceil(th / step);
  const over = Math.max(w, h) / MAX_SIDE;
  if (over > 1) { w = Math.max(1, Math.floor(w / over)); h = Math.max(1, Math.floor(h / over)); }
  return { width: w, height: h };
}

/** `[p, q]` with small terms when width:height is that ratio within half a CSS pixel. */
function simpleRatio(width, height) {
  for (let q = 1; q <= 32; q++) {
    const p = Math.round((q * width) / height);
    if (p < 1 || p > 32) continue;
    if (Math.abs((p * height) / q - width) <= 0.5 && Math.abs((q * width) / p - height) <= 0.5) {
      const d = gcd(p, q);
      return [p / d, q / d];
    }
  }
  return null;
}

function gcd(a, b) { while (b) [a, b] = [b, a % b]; return a; }

/** An `aspect` attribute ("16:9", "16/9", "16x9" or "1.5") as a positive number, or null. */
function parseAspect(text) {
  if (!text) return null;
  const parts = text.split(/[:/x]/).map(Number);
  const value = parts.length === 2 ? parts[0] / parts[1] : parts[0];
  return Number.isFinite(value) && value > 0 ? value : null;
}

// ---------------------------------------------------------------------------------------------
// URLs and signing

/** The image part of a URL: a path under the server's root, `id:<sha256>`, or an http(s) URL. */
function encodeSource(src) {
  if (/^https?:\/\//i.test(src)) return encodeURIComponent(src);
  return src.replace(/^\/+/, '').split('/').map((part) => encodeURIComponent(part).replace(/%3A/gi, ':')).join('/');
}

/** The path after `unsafe/` (or the signature) for an element's options and size. */
function cropPath(src, size, options) {
  const filters = [];
  for (const { attribute, filter } of CROP_OPTIONS) {
    if (filter && options[attribute]) filters.push(`${filter}(${options[attribute]})`);
  }
  return `${size.width}x${size.height}/` + (options.detect ? 'smart/' : '') +
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
// Fetching, with a page-wide memory for elements that have a cache-name

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

/** Finished crops (blob and plan) by key, least recently used first out, bounded in bytes. */
const memory = new Map();
let memoryBytes = 0;
/** Requests in flight by key, shared by the elements that want the same crop. */
const inflight = new Map();
/** Sources whose crops changed on the server (a saved crop): fetched revalidating from then on. */
const changed = new Set();

function remember(key, result) {
  if (result.blob.size > MEMORY_BYTES / 4) return;
  forget(key);
  memory.set(key, result);
  memoryBytes += result.blob.size;
  for (const [old, value] of memory) {
    if (memoryBytes <= MEMORY_BYTES) break;
    memory.delete(old);
    memoryBytes -= value.blob.size;
  }
}

function forget(key) {
  const old = memory.get(key);
  if (old) { memory.delete(key); memoryBytes -= old.blob.size; }
}

/** One request: the image bytes and what Focal says about them. */
async function download(url, signal, revalidate) {
  let response;
  try {
    response = await fetch(url, { signal, cache: revalidate ? 'no-cache' : 'default', credentials: 'omit' });
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
  return { blob, plan, strategy, url };
}

/**
 * The crop at `url`. With a `key`, a finished result is taken from memory and a request in
 * flight for the same key is joined; the shared request is aborted only when every element
 * waiting for it has given up.
 */
function load(url, { key, signal, revalidate }) {
  if (!key) return download(url, signal, revalidate);
  const hit = memory.get(key);
  if (hit) { memory.delete(key); memory.set(key, hit); return Promise.resolve(hit); }
  let entry = inflight.get(key);
  if (!entry) {
    const controller = new AbortController();
    entry = { controller, users: 0, promise: download(url, controller.signal, revalidate) };
    const mine = entry;
    entry.promise.then((result) => remember(key, result), () => {})
      .finally(() => { if (inflight.get(key) === mine) inflight.delete(key); });
    inflight.set(key, entry);
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
const owners = new WeakMap();        // observed frame → its element
const reducedMotion = matchMedia('(prefers-reduced-motion: reduce)');

// ---------------------------------------------------------------------------------------------
// The element

const STYLE = `
  :host { display: block; position: relative; overflow: hidden; contain: paint;
          background: var(--focal-img-background, rgb(128 128 128 / 0.12)); }
  :host([hidden]) { display: none; }
  .frame { position: absolute; inset: 0; }
  img { position: absolute; inset: 0; width: 100%; height: 100%; object-fit: cover;
        border-radius: inherit; display: block; }
  img.crop { transition: opacity var(--focal-img-fade, ${FADE_MS}ms) ease-out; }
  img.placeholder:not([src]) { display: none; }
  @media (prefers-reduced-motion: reduce) { img.crop { transition: none; } }
`;

export class FocalImg extends HTMLElement {
  static observedAttributes = [...REQUEST_ATTRIBUTES, 'alt', 'placeholder', 'aspect'];

  #frame; #placeholder; #hostStyle; #internals;
  #box = { width: 0, height: 0 };   // the frame's CSS size
  #wanted = null;                     // key of the request in flight or shown
  #seq = 0;                           // number of the newest request
  #controller = null;
  #shown = null;                      // what is on screen: {identity, url, width, height, plan, strategy}
  #layers = [];                       // shown <img>s, newest last, each with its object URL
  #scheduled = false;
  #revalidate = false;                // the next request revalidates (after refresh())
  #state = 'empty';
  #sign = null;

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = `<style>${STYLE}</style><style class="host"></style>
      <div class="frame" part="frame"><img class="placeholder" part="placeholder" alt=""></div>`;
    this.#frame = root.querySelector('.frame');
    this.#placeholder = root.querySelector('.placeholder');
    this.#hostStyle = root.querySelector('style.host');
    this.#internals = this.attachInternals?.();
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
  /** The plan of the crop on screen (parsed X-Focal-Plan), or null. */
  get plan() { return this.#shown?.plan ?? null; }

  /**
   * Asks again, past every cache: for after a crop of this image was saved or reset on the
   * server. Crops of the same source requested later (other sizes) also revalidate.
   */
  refresh() {
    changed.add(this.#identity());
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
    owners.set(this.#frame, this);
    FocalImg.#resizes.observe(this.#frame);
    this.#describe();
    this.#schedule();
  }

  disconnectedCallback() {
    // Moving the element fires disconnect then connect: only a real removal lets go.
    queueMicrotask(() => {
      if (this.isConnected) return;
      elements.delete(this);
      FocalImg.#resizes.unobserve(this.#frame);
      this.#controller?.abort();
      this.#controller = null;
      this.#wanted = null;
      this.#seq++;
      this.#clearLayers();
      this.#shown = null;
      this.#setState('empty');
    });
  }

  attributeChangedCallback(name, old, value) {
    if (old === value) return;
    if (name === 'alt') this.#describe();
    else if (name === 'placeholder') value ? this.#placeholder.setAttribute('src', value) : this.#placeholder.removeAttribute('src');
    else if (name === 'aspect') {
      const ratio = parseAspect(value);
      this.#hostStyle.textContent = ratio ? `:host { aspect-ratio: ${ratio}; height: auto; }` : '';
    } else this.#schedule(true);
  }

  // --- internals ---

  static #resizes = new ResizeObserver((entries) => {
    for (const entry of entries) {
      const element = owners.get(entry.target);
      if (!element) continue;
      element.#box = { width: entry.contentRect.width, height: entry.contentRect.height };
      element.#schedule();
    }
  });

  /** A new devicePixelRatio (browser zoom, another screen): every element asks again. */
  static #ratioQuery = null;
  static #watchPixelRatio() {
    FocalImg.#ratioQuery?.removeEventListener('change', FocalImg.#watchPixelRatio);
    FocalImg.#ratioQuery = matchMedia(`(resolution: ${devicePixelRatio}dppx)`);
    FocalImg.#ratioQuery.addEventListener('change', FocalImg.#watchPixelRatio);
    for (const element of elements) element.#schedule();
  }
  static { FocalImg.#watchPixelRatio(); }

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
    for (const { attribute } of CROP_OPTIONS) options[attribute] = this.getAttribute(attribute)?.trim() || null;
    // detect is the URL's smart/: on unless off (or false, 0, no), as the option table reads it.
    options.detect = !['off', 'false', '0', 'no'].includes((options.detect || 'on').toLowerCase());
    return options;
  }

  /** Requests the crop for the current box and settings, unless it is already wanted. */
  async #update() {
    if (!this.isConnected) return;
    const src = this.getAttribute('src');
    if (!src) {
      this.#controller?.abort();
      this.#wanted = null; this.#seq++;
      this.#clearLayers(); this.#shown = null;
      this.#setState('empty');
      return;
    }
    // display: none, or a box without height: nothing to fit, nothing requested.
    const size = frameSize(this.#box.width, this.#box.height, devicePixelRatio, Number(this.getAttribute('step')) || DEFAULT_STEP);
    if (!size) return;
    const path = cropPath(src, size, this.#options());
    const identity = this.#identity();
    const name = this.getAttribute('cache-name');
    // The source itself is not part of a named key: the name says which image this is.
    const key = name ? this.#memoryPrefix(name) + path.slice(0, path.length - encodeSource(src).length) : null;
    const wanted = `${identity}|${path}`;
    if (wanted === this.#wanted) return;
    this.#wanted = wanted;

    this.#controller?.abort();
    const controller = this.#controller = new AbortController();
    const seq = ++this.#seq;
    const revalidate = this.#revalidate || this.hasAttribute('revalidate') || changed.has(identity);
    if (this.#revalidate && key) forget(key);
    this.#revalidate = false;
    this.#setState('loading');
    let picture = null;
    try {
      const url = await this.#url(path);
      if (seq !== this.#seq) return;
      const result = await load(url, { key, signal: controller.signal, revalidate });
      if (seq !== this.#seq) return;
      picture = await this.#decode(result.blob);
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
      if (picture) URL.revokeObjectURL(picture.src);
    }
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
    return /^https?:\/\//i.test(url) ? url : server + (url.startsWith('/') ? url : `/${url}`);
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

  #show(img, result) {
    img.className = 'crop';
    img.alt = '';
    img.setAttribute('part', 'image');
    img.setAttribute('aria-hidden', 'true');
    const fade = this.getAttribute('fade') !== 'off' && !reducedMotion.matches;
    if (fade) img.style.opacity = '0';
    this.#frame.append(img);
    this.#layers.push(img);
    const older = this.#layers.slice(0, -1);
    const dropOlder = () => {
      for (const layer of older) { layer.remove(); URL.revokeObjectURL(layer.src); }
      this.#layers = this.#layers.filter((layer) => !older.includes(layer));
    };
    if (fade) {
      img.getBoundingClientRect();   // start the transition from 0
      img.style.opacity = '1';
      setTimeout(dropOlder, FADE_MS + 60);
    } else dropOlder();

    this.#shown = { identity: result.identity, url: result.url, width: img.naturalWidth, height: img.naturalHeight,
      plan: result.plan, strategy: result.strategy };
    this.#setState('loaded');
    const subjects = (result.plan?.subjects || []).map(([kind, x, y, width, height, confidence]) => ({ kind, x, y, width, height, confidence }));
    this.dispatchEvent(new CustomEvent('focal-load', { bubbles: true, composed: true, detail: {
      url: result.url, width: img.naturalWidth, height: img.naturalHeight, strategy: result.strategy, plan: result.plan, subjects,
    } }));
  }

  /**
   * A failed request. The crop of the same image stays when there is one (a failed resize is
   * not worth a blank box); otherwise the placeholder shows.
   */
  #fail(error, identity) {
    if (this.#shown?.identity !== identity) { this.#clearLayers(); this.#shown = null; }
    this.#wanted = null;   // the next resize or refresh tries again
    this.#setState('error');
    this.dispatchEvent(new CustomEvent('focal-error', { bubbles: true, composed: true, detail: {
      status: error.status, code: error.code, message: error.message,
    } }));
  }

  #clearLayers() {
    for (const layer of this.#layers) { layer.remove(); URL.revokeObjectURL(layer.src); }
    this.#layers = [];
  }

  #setState(state) {
    this.#state = state;
    const states = this.#internals?.states;
    if (states) {
      try { for (const s of ['empty', 'loading', 'loaded', 'error']) states.delete(s); states.add(state); } catch { /* older browsers */ }
    }
    this.toggleAttribute('aria-busy', state === 'loading');
  }

  /** `alt` becomes the accessible name of an image; `alt=""` marks it decorative. */
  #describe() {
    const alt = this.getAttribute('alt');
    const role = alt === '' ? 'presentation' : 'img';
    if (this.#internals && 'role' in this.#internals) {
      this.#internals.role = role;
      this.#internals.ariaLabel = alt || null;
    } else {
      this.setAttribute('role', role);
      alt ? this.setAttribute('aria-label', alt) : this.removeAttribute('aria-label');
    }
  }
}

if (!customElements.get('focal-img')) customElements.define('focal-img', FocalImg);
