// The gallery's client for Focal's JSON API: configuration, photos, plans, uploads, saved crops.
// Writes carry the bearer token, asked for once and kept in sessionStorage for the tab. On a
// signed-only server (config.signedReads) reads of the API carry it too: nothing about the photos
// is public there.

const TOKEN_KEY = 'focal.token';

/** An API failure: the HTTP status and Focal's error code and message. */
export class APIError extends Error {
  constructor(status, code, message) { super(message); this.status = status; this.code = code; }
}

/** Asks the person for the token; set by the page (returns a promise of a string, or null). */
let askForToken = async () => null;
export function onTokenNeeded(ask) { askForToken = ask; }

export function storedToken() { return sessionStorage.getItem(TOKEN_KEY); }
export function forgetToken() { sessionStorage.removeItem(TOKEN_KEY); }

/** Whether reads need the token (a signed-only server); set from /v1/config. */
let readsNeedToken = false;
export function setSignedReads(value) { readsNeedToken = !!value; }

/**
 * How a preview's path becomes a URL: `unsafe/` on a server that takes unsafe URLs, signed by
 * /v1/page-urls where photos are public, else none (the original is shown).
 */
let previewSigner = null;
export function setPreviewSigner(sign) { previewSigner = sign; }

/**
 * The stored token, or one asked for now. Throws when the person declines.
 * @param {boolean} refused  whether the server just refused the stored one (the dialog says so)
 */
async function token(refused = false) {
  let value = storedToken();
  if (!value) {
    value = (await askForToken({ refused }))?.trim();
    if (!value) throw new APIError(401, 'auth.cancelled', 'A token is needed to change anything on this server.');
    sessionStorage.setItem(TOKEN_KEY, value);
  }
  return value;
}

/**
 * One request. JSON bodies are sent as JSON; `write` adds the token and, when the server refuses
 * it (401/403), forgets it and asks once more.
 */
async function request(method, path, { json, body, headers = {}, write = false, raw = false } = {}, retried = false) {
  write = write || (readsNeedToken && path !== '/v1/config');
  const init = { method, headers: { Accept: raw ? '*/*' : 'application/json', ...headers } };
  if (json !== undefined) { init.body = JSON.stringify(json); init.headers['Content-Type'] = 'application/json'; }
  if (body !== undefined) init.body = body;
  if (write) init.headers.Authorization = `Bearer ${await token(retried)}`;
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new APIError(0, 'network', 'The Focal server could not be reached.');
  }
  if (write && (response.status === 401 || response.status === 403) && !retried) {
    forgetToken();
    return request(method, path, { json, body, headers, write, raw }, true);
  }
  if (!response.ok) {
    let error = {};
    try { error = await response.json(); } catch { /* not JSON */ }
    throw new APIError(response.status, error.code || `http.${response.status}`, error.message || response.statusText);
  }
  if (raw) return { response, data: await response.blob() };
  return { response, data: response.status === 204 ? null : await response.json().catch(() => null) };
}

export const api = {
  /** {unsafe, signed, writes, root, maxOutputSide} */
  config: async () => (await request('GET', '/v1/config')).data,
  /** A URL for an image's original: its API path, or on a signed-only server a blob fetched with the token. */
  async originalURL(id) {
    if (!readsNeedToken) return `/v1/images/${id}`;
    return URL.createObjectURL((await request('GET', `/v1/images/${id}`, { raw: true })).data);
  },
  /**
   * A URL that shows the whole upright photo with a long side of at most `longSide` pixels, for
   * panels that need no more (the overlay, the editor): a `fit-in` image URL in the automatic
   * format where unsafe URLs are allowed, else the original.
   * @param {{src: string, id: string}} photo
   * @param {number} longSide
   */
  async previewURL(photo, longSide) {
    if (!previewSigner || photo.src.startsWith('id:')) return this.originalURL(photo.id);
    const side = Math.max(200, Math.min(2000, Math.ceil(longSide / 200) * 200));   // a few sizes, cacheable
    // Encoded as focal-img.js encodes a source (`:` kept), the one spelling /v1/page-urls signs.
    const path = photo.src.split('/').map((part) => encodeURIComponent(part).replace(/%3A/gi, ':')).join('/');
    return previewSigner(`fit-in/${side}x${side}/filters:format(auto)/${path}`);
  },
  /** [{path, id}] */
  photos: async () => (await request('GET', '/v1/photos')).data.photos,
  /** The plan for a source ({path} | {id}) and frames ([{aspect: "16:9"}, ...]). */
  plan: async (source, frames, options) => (await request('POST', '/v1/plan', { json: { source, frames, options } })).data,
  /** Stores an image file; answers {id, width, height, format}. */
  upload: async (file) => (await request('POST', '/v1/images', {
    body: file, headers: { 'Content-Type': file.type || 'application/octet-stream' }, write: true,
  })).data,
  /**
   * Signs the page's own thumbor paths (frames and previews of photos under the root) without the
   * token, on a server whose photos are public (config.pageURLs).
   */
  pageURLs: async (paths) => (await request('POST', '/v1/page-urls', { json: { paths } })).data.urls,
  /** Signs thumbor paths with the server's key (for servers without unsafe URLs). */
  sign: async (paths) => (await request('POST', '/v1/sign', { json: { paths }, write: true })).data.urls,

  /** The saved crop of an image for an aspect ("16x9"), or null. */
  async override(id, aspect) {
    try {
      return (await request('GET', `/v1/images/${id}/overrides/${aspect}`)).data;
    } catch (error) {
      if (error.status === 404) return null;
      throw error;
    }
  },
  /**
   * Saves a crop {x, y, width, height}. `revision`, the one the editor started from, guards
   * against overwriting someone else's: `If-Match` it, or with none `If-None-Match: *` (a crop
   * saved meanwhile by another editor is a 412, not overwritten).
   */
  saveOverride: async (id, aspect, crop, revision) => (await request('PUT', `/v1/images/${id}/overrides/${aspect}`, {
    json: crop, write: true, headers: revision != null ? { 'If-Match': `"${revision}"` } : { 'If-None-Match': '*' },
  })).data,
  /** Deletes the saved crop (only `revision`, when given: a newer one is a 412): the automatic one applies again. */
  deleteOverride: async (id, aspect, revision) => {
    await request('DELETE', `/v1/images/${id}/overrides/${aspect}`, {
      write: true, headers: revision != null ? { 'If-Match': `"${revision}"` } : {},
    });
  },
};

/** "16:9" → "16x9", reduced ("32:18" → "16x9"), as the overrides API names aspects. */
export function aspectKey(aspect) {
  let [a, b] = aspect.split(/[:x]/).map(Number);
  const gcd = (x, y) => (y ? gcd(y, x % y) : x);
  const d = gcd(a, b);
  return `${a / d}x${b / d}`;
}
