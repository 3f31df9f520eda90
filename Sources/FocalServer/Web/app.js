// The gallery at `/`: pick or upload a photo, see it in several frames beside the centre crop,
// reshape the frames, look at what Focal saw, and fix a crop by hand in the editor.

import { FocalImg, batchSigner, focalImgMarkup } from './focal-img.js';
import { api, aspectKey, onTokenNeeded, APIError, setSignedReads, setPreviewSigner } from './api.js';
import { FRAMES, createCard } from './frames.js';
import { drawOverlay, drawLegend } from './overlay.js';
import { CropEditor } from './editor.js';

const $ = (selector) => document.querySelector(selector);
const UPLOADS_KEY = 'focal.uploads';

const state = {
  config: null,
  photos: [],       // {src, id, name, source} from /v1/photos and this tab's uploads
  current: null,    // the photo shown
  plan: null,       // /v1/plan for the current photo, one frame per FRAMES entry
  planned: null,    // {photo, plan} that showcase() planned already, used once by refreshPlan
  views: [],        // the frame cards (see frames.js)
  active: null,     // the card whose crop the overlay draws
  sign: null,       // signing function when the server takes no unsafe URLs
};

// --- small helpers ---

let statusTimer = 0;
/** A short message in the corner; errors stay a little longer. */
function say(message, kind = 'info') {
  const status = $('#status');
  status.textContent = message;
  status.dataset.kind = kind;
  status.classList.add('shown');
  clearTimeout(statusTimer);
  statusTimer = setTimeout(() => status.classList.remove('shown'), kind === 'error' ? 7000 : 3500);
}

const toCrop = (array) => (array ? { x: array[0], y: array[1], width: array[2], height: array[3] } : null);

/**
 * Asks for the token in the page's dialog; resolves with it, or null when cancelled. Enter
 * continues (Continue is the form's only submit button; Cancel and Escape close without it).
 * @param {{refused?: boolean}} [why]  `refused`: the server refused the token given before
 */
function askForToken({ refused = false } = {}) {
  const dialog = $('#token-dialog'), input = $('#token-input');
  input.value = '';
  $('#token-refused').hidden = !refused;
  dialog.returnValue = '';
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok' ? input.value : null), { once: true });
  });
}

// --- photos ---

function savedUploads() {
  try { return JSON.parse(sessionStorage.getItem(UPLOADS_KEY) || '[]'); } catch { return []; }
}

function photoFromUpload({ id, name }) {
  return { src: `id:${id}`, id, name: name || id.slice(0, 8), source: { id } };
}

/** Applies the page's signing (when needed) to an element. */
function prepare(element) {
  if (state.sign) element.sign = state.sign;
  // Where /v1/page-urls signs the page's URLs, it signs the sizes of its ladder only.
  if (state.config?.pageURLSides) element.setAttribute('ladder', state.config.pageURLSides.join(' '));
  return element;
}

function renderPicker() {
  const list = $('#photos');
  for (const old of list.querySelectorAll('.photo:not(.upload)')) old.remove();
  for (const photo of state.photos) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'photo';
    button.dataset.src = photo.src;
    button.setAttribute('aria-pressed', String(photo === state.current));
    const thumb = prepare(document.createElement('focal-img'));
    thumb.setAttribute('alt', '');
    thumb.setAttribute('src', photo.src);
    thumb.setAttribute('revalidate', '');
    const name = document.createElement('span');
    name.className = 'photo-name';
    name.textContent = photo.name;
    button.append(thumb, name);
    button.addEventListener('click', () => select(photo));
    list.append(button);
    fitName(name, photo.name);
    // A shortened name is read and shown whole on hover.
    if (name.textContent !== photo.name) { button.title = photo.name; button.setAttribute('aria-label', photo.name); }
  }
  rove(list);
}

/** `name` in at most `length` characters: its middle gives way to an ellipsis. */
function shortName(name, length) {
  const characters = [...name];
  if (characters.length <= length) return name;
  const end = Math.floor((length - 1) / 2), start = length - 1 - end;
  return `${characters.slice(0, start).join('').trimEnd()}…${characters.slice(-end).join('').trimStart()}`;
}

/**
 * Shortens a photo's name from the middle until it fits its two lines: names that share their
 * start ("Gnome avalanche, take 1", "… take 2") keep the end that tells them apart, where an
 * ellipsis at the end would show the same words for each.
 */
function fitName(span, name) {
  // Measured in the chosen photo's weight, the wider one.
  span.style.fontWeight = '600';
  for (let length = [...name].length - 1; length >= 5 && span.scrollHeight > span.clientHeight + 1; length--) {
    span.textContent = shortName(name, length);
  }
  span.style.removeProperty('font-weight');
}

/** The photo row's controls: the upload, then each photo. */
const rowItems = (list) => [...list.querySelectorAll('#upload-input, .photo[data-src]')];

/**
 * The photo row is one tab stop (a toolbar): the chosen photo, or the first control, takes focus
 * from Tab; the arrow keys, Home and End move among the rest.
 */
function rove(list, focused = null) {
  const items = rowItems(list);
  const current = focused || items.find((item) => item.getAttribute('aria-pressed') === 'true') || items[0];
  for (const item of items) item.tabIndex = item === current ? 0 : -1;
}

function moveInRow(event) {
  const list = event.currentTarget, items = rowItems(list);
  const at = items.indexOf(document.activeElement);
  if (at < 0) return;
  const next = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: items.length - 1 }[event.key];
  if (next === undefined) return;
  event.preventDefault();
  const item = items[Math.max(0, Math.min(items.length - 1, next))];
  rove(list, item);
  item.focus();
  (item.closest('.photo') || item).scrollIntoView({ block: 'nearest', inline: 'nearest' });
}

/** Shows a photo in every frame and the original, and asks Focal for its plan. */
async function select(photo) {
  state.current = photo;
  history.replaceState(null, '', photo.source.path ? `#photo=${encodeURIComponent(photo.source.path)}` : `#id=${photo.id}`);
  for (const button of document.querySelectorAll('.photo[data-src]')) {
    const chosen = button.dataset.src === photo.src;
    button.setAttribute('aria-pressed', String(chosen));
    if (chosen) button.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }
  // The row's tab stop follows the choice, unless focus is in the row (it stays where it is).
  if (!$('#photos').contains(document.activeElement)) rove($('#photos'));
  document.body.classList.remove('empty');
  for (const view of state.views) {
    view.focal.setAttribute('src', photo.src);
    view.centre.setAttribute('src', photo.src);
  }
  // What Focal saw of the previous photo goes at once; this one's comes with its plan.
  drawOverlay($('#overlay'), null);
  drawLegend($('#legend'), null);
  const original = $('#original');
  try {
    // The panel's size in device pixels is all it needs, not the whole original.
    const panel = $('#original-figure').getBoundingClientRect();
    original.src = await api.previewURL(photo, Math.max(panel.width, panel.height, 400) * devicePixelRatio);
  } catch (error) {
    say(`The original could not be shown: ${error.message}`, 'error');
  }
  original.alt = `The whole photo: ${photo.name}`;
  updateSnippet();
  await refreshPlan();
}

async function refreshPlan() {
  const photo = state.current;
  if (!photo) return;
  state.plan = null;
  $('#original-figure').classList.add('loading');
  try {
    // The plan showcase() already has for this photo, once; else asked for.
    const planned = state.planned?.photo === photo ? state.planned.plan : null;
    state.planned = null;
    const plan = planned || await api.plan(photo.source, PLAN_FRAMES);
    if (photo !== state.current) return;
    state.plan = plan;
    updateSnippet();
    $('#original-figure').style.aspectRatio = `${plan.image.width} / ${plan.image.height}`;
    $('#original-meta').textContent = `${photo.name} · ${plan.image.width} × ${plan.image.height} px`;
    drawLegend($('#legend'), plan);
    redrawOverlay();
  } catch (error) {
    say(`Focal could not plan this photo: ${error.message}`, 'error');
  } finally {
    $('#original-figure').classList.remove('loading');
  }
}

/** The overlay shows the subjects and the active frame's crops as the frame shows them now. */
function redrawOverlay() {
  const view = state.active || state.views[0];
  if (!state.plan || !view) return;
  const index = state.views.indexOf(view), planned = state.plan.frames[index];
  const strategy = view.focal.plan?.strategy || planned?.strategy;
  drawOverlay($('#overlay'), state.plan, {
    crop: toCrop(view.focal.plan?.crop) || planned?.crop,
    centre: toCrop(view.centre.plan?.crop),
    region: view.atAspect ? planned?.region : null,
    used: planned?.used,
    label: `${view.frame.name}${strategy ? ` · ${strategy === 'manual' ? 'saved crop' : strategy}` : ''}`,
  });
  for (const v of state.views) v.card.classList.toggle('active', v === view);
}

async function upload(file) {
  if (!file) return;
  if (!state.config?.writes) {
    say('This server takes no uploads: it was started without --token.', 'error');
    return;
  }
  document.body.classList.add('uploading');
  say(`Uploading ${file.name}…`);
  try {
    const stored = await api.upload(file);
    const entry = { id: stored.id, name: file.name.replace(/\.[^.]+$/, '') };
    const uploads = savedUploads().filter((u) => u.id !== entry.id);
    uploads.unshift(entry);
    sessionStorage.setItem(UPLOADS_KEY, JSON.stringify(uploads.slice(0, 12)));
    let photo = state.photos.find((p) => p.id === stored.id);
    if (!photo) {
      photo = photoFromUpload(entry);
      state.photos.push(photo);
      renderPicker();
    }
    await select(photo);
    say(`${file.name}: ${stored.width} × ${stored.height} px, stored.`);
  } catch (error) {
    say(`Upload failed: ${error.message}`, 'error');
  } finally {
    document.body.classList.remove('uploading');
  }
}

// --- the editor ---

const editor = new CropEditor($('#editor'));

async function edit(view) {
  const photo = state.current;
  if (!photo) return;
  if (!state.config?.writes) {
    say('This server cannot save crops: it was started without --token.', 'error');
    return;
  }
  const [a, b] = view.frame.aspect, key = aspectKey(`${a}:${b}`);
  let frame, image;
  try {
    const plan = await api.plan(photo.source, [{ aspect: `${a}:${b}` }]);
    [frame] = plan.frames;
    image = plan.image;
  } catch (error) {
    say(`Focal could not plan this photo: ${error.message}`, 'error');
    return;
  }
  const saved = frame.override;
  let removedElsewhere = false;
  const outcome = await editor.open({
    title: `${view.frame.name} · ${a}:${b}`,
    photoURL: await api.previewURL(photo, Math.max(innerWidth, innerHeight) * devicePixelRatio),
    image,
    aspect: [a, b],
    crop: frame.crop,
    origin: saved
      ? `Starting from the crop saved for ${a}:${b} (revision ${saved.revision}).`
      : `Starting from Focal's automatic crop (${frame.strategy}).`,
    saved: !!saved,
    onSave: async (crop) => {
      try {
        await api.saveOverride(photo.id, key, crop, saved?.revision);
      } catch (error) {
        throw explain(error);
      }
    },
    onReset: async () => {
      try {
        await api.deleteOverride(photo.id, key, saved?.revision);
      } catch (error) {
        if (error.status !== 404) throw explain(error);
        removedElsewhere = true;   // already gone: Focal's own crop is in force, but not by this reset
      }
    },
  });
  if (outcome === 'cancelled') return;
  // The frame returns to its named aspect, where the saved crop applies, and every element
  // showing this photo asks again past the caches.
  view.setSize(view.frame.width, view.frame.height);
  FocalImg.refresh(photo.src);
  await refreshPlan();
  say(outcome === 'saved' ? `Saved: every ${a}:${b} crop of this photo uses it now.`
    : removedElsewhere ? `The ${a}:${b} crop saved for this photo had already been removed (elsewhere): Focal's automatic crop shows.`
      : `Back to Focal's automatic ${a}:${b} crop.`);
}

/** An API error as a sentence for the editor. */
function explain(error) {
  if (error instanceof APIError && error.status === 412) {
    return new Error('Someone changed this crop since you opened it. Close the editor and open it again to see theirs.');
  }
  if (error instanceof APIError && error.status === 404 && error.code === 'request.not_found') {
    return new Error('This server does not store crops yet (no overrides API).');
  }
  return error;
}

// --- page furniture ---

function renderFacts(config) {
  const facts = [
    config.unsafe ? ['Unsafe URLs allowed', 'warn'] : ['Signed URLs only', 'ok'],
    config.writes ? ['Uploads and saved crops (token)', 'ok'] : ['Read-only', 'muted'],
  ];
  $('#facts').replaceChildren(...facts.map(([text, kind]) => {
    const item = document.createElement('li');
    item.className = `fact ${kind}`;
    item.textContent = text;
    return item;
  }));
}

/**
 * The "use it on your site" snippet and sample URL, as this server takes them: the README's
 * markup form (stylesheet, module, `<focal-img>` around an `<img srcset>`), which shows as early
 * as a plain `<img>`, without layout shift, and with JavaScript off.
 */
async function updateSnippet() {
  const origin = location.origin, src = state.current?.src || 'photo.jpg', config = state.config || {};
  const versioned = config.element?.script && config.element?.style;
  const style = versioned
    ? `<link rel="stylesheet" href="${origin}${config.element.style}"\n      integrity="${config.element.styleIntegrity}" crossorigin="anonymous">`
    : `<link rel="stylesheet" href="${origin}/focal-img.css">`;
  const script = versioned
    ? `<script type="module" src="${origin}${config.element.script}"\n        integrity="${config.element.integrity}" crossorigin="anonymous"></script>`
    : `<script type="module" src="${origin}/focal-img.js"></script>`;
  // A signed server's URLs are signed by the site that shows them: with its key in the markup's
  // URLs (SIGNATURE stands for each one's), through its signer for the element's own requests.
  const url = config.unsafe ? (path) => `${origin}/unsafe/${path}` : (path) => `${origin}/SIGNATURE/${path}`;
  // The hero the README teaches: eager and first in line, widths for its 700-px slot (1x to 2x,
  // and a phone's full width), versioned by the crop version of the plan (cached a year).
  const version = state.plan?.frames?.find((frame) => frame.target === '16:9')?.version || undefined;
  let html = focalImgMarkup({ server: origin, src, aspect: '16:9', widths: [350, 700, 1050, 1400],
    sizes: '(max-width: 700px) 100vw, 700px', alt: 'Describe the photo', loading: 'eager', fetchpriority: 'high', version, url });
  if (!config.unsafe) html = html.replace('<focal-img ', '<focal-img signer="/your-signing-endpoint" ');
  // One attribute per line, and one srcset candidate per line, as a person would write it.
  html = html.replace(/ (?=(?:src|srcset|sizes|width|alt|aspect|server|signer|loading|version)=)/g, '\n     ')
    .replace(/, (?=https?:)/g, ',\n             ').replace('><img', '>\n  <img').replace('></focal-img>', '>\n</focal-img>');
  $('#snippet').textContent = `${style}\n${script}\n\n${html}`;
  // A server that signs the page's URLs signs its ladder's sizes only: the sample is one of them.
  const ladder = config.pageURLSides || [];
  const side = ladder.length ? ladder.reduce((a, b) => (Math.abs(b - 400) < Math.abs(a - 400) ? b : a)) : 400;
  const path = `${side}x${side}/smart/filters:format(auto)/${src.split('/').map((p) => encodeURIComponent(p).replace(/%3A/gi, ':')).join('/')}`;
  let sample = null;
  try {
    sample = config.unsafe ? `/unsafe/${path}` : (config.pageURLs && !src.startsWith('id:') ? await state.sign(path) : null);
  } catch { /* not signable here: no sample */ }
  $('#sample-url').textContent = sample || "Signed URLs only: sign one with this server's key.";
  if (sample) $('#sample-url').href = sample; else $('#sample-url').removeAttribute('href');
}

function wireDropAndCopy() {
  $('#photos').addEventListener('keydown', moveInRow);
  $('#upload-input').addEventListener('change', (e) => { upload(e.target.files[0]); e.target.value = ''; });
  let depth = 0;
  const hasFiles = (e) => [...(e.dataTransfer?.types || [])].includes('Files');
  document.addEventListener('dragenter', (e) => { if (hasFiles(e)) { depth++; document.body.classList.add('dropping'); } });
  document.addEventListener('dragleave', (e) => { if (hasFiles(e) && --depth <= 0) { depth = 0; document.body.classList.remove('dropping'); } });
  document.addEventListener('dragover', (e) => { if (hasFiles(e)) e.preventDefault(); });
  document.addEventListener('drop', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth = 0;
    document.body.classList.remove('dropping');
    upload(e.dataTransfer.files[0]);
  });
  $('#copy-snippet').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText($('#snippet').textContent);
      say('Copied.');
    } catch {
      say('Select the code and copy it.', 'error');
    }
  });
  $('#show-plan').addEventListener('change', (e) => $('#original-figure').classList.toggle('plain', !e.target.checked));
}

// --- start ---

async function start() {
  onTokenNeeded(askForToken);
  $('#token-cancel').addEventListener('click', () => $('#token-dialog').close('cancel'));
  wireDropAndCopy();
  document.body.classList.add('empty');

  const list = $('#frames'), template = $('#frame-template');
  for (const frame of FRAMES) {
    const view = createCard(template, frame, {
      onEdit: edit,
      onActivate: (v) => { state.active = v; redrawOverlay(); },
    });
    list.append(view.card);
    for (const el of [view.focal, view.centre]) {
      el.addEventListener('focal-load', () => { if ((state.active || state.views[0]) === view) redrawOverlay(); });
    }
    state.views.push(view);
  }
  // Frames may be no wider than the list: re-apply sizes when it narrows.
  new ResizeObserver(() => { for (const v of state.views) v.fit(); }).observe(list);

  try {
    state.config = await api.config();
  } catch (error) {
    say(`The Focal server could not be reached: ${error.message}`, 'error');
    return;
  }
  renderFacts(state.config);
  // A server without a token takes no uploads and saves no crops: the page offers neither.
  document.body.classList.toggle('read-only', !state.config.writes);
  // Where photos are public, a visitor reads them without the token.
  setSignedReads(state.config.signedReads && !state.config.publicPhotos);
  if (state.config.unsafe) {
    setPreviewSigner(async (path) => `/unsafe/${path}`);
  } else {
    // Every image URL is signed: the page's own (frames and previews of photos under the root)
    // by /v1/page-urls for anyone where photos are public; anything else (uploads) by /v1/sign,
    // which needs the token.
    const withToken = batchSigner((paths) => api.sign(paths));
    const forPage = state.config.pageURLs ? batchSigner((paths) => api.pageURLs(paths)) : null;
    state.sign = (path) => (forPage && !/(^|\/)id(:|%3A)/i.test(path) ? forPage(path) : withToken(path));
    if (forPage) setPreviewSigner(forPage);
  }
  for (const view of state.views) { prepare(view.focal); prepare(view.centre); }

  // Signed-only with private photos and no token at all: nothing here can be shown to anyone,
  // and no token could be asked for. Say so instead of asking.
  if (state.config.signedReads && !state.config.publicPhotos && !state.config.writes) {
    $('#private-notice').hidden = false;
    document.body.classList.add('private');
    return;
  }

  try {
    state.photos = state.config.root ? (await api.photos()).map((p) => ({
      src: p.path, id: p.id, name: p.path.replace(/\.[^.]+$/, '').replace(/[_-]+/g, ' '), source: { path: p.path },
    })) : [];
  } catch (error) {
    say(`The demo photos could not be listed: ${error.message}`, 'error');
  }
  for (const upload of savedUploads()) {
    if (!state.photos.some((p) => p.id === upload.id)) state.photos.push(photoFromUpload(upload));
  }
  renderPicker();

  // The photo named in the address, else one that shows what Focal does; and again when the
  // address changes.
  window.addEventListener('hashchange', () => {
    const photo = photoInAddress();
    if (photo && photo !== state.current) select(photo);
  });
  const photo = photoInAddress() || await showcase(state.photos);
  if (photo) await select(photo);
  else say('No demo photos here: upload one to begin.');
}

/** The gallery's frames as `/v1/plan` takes them. */
const PLAN_FRAMES = FRAMES.map((frame) => ({ aspect: frame.aspect.join(':') }));
/** How many of the first photos are planned to choose the one the gallery opens on. */
const SHOWCASE_CANDIDATES = 6;
/** A frame whose Focal crop and centre crop overlap less than this (intersection over union) differs visibly. */
const SHOWCASE_OVERLAP = 0.7;

/**
 * The photo the gallery opens on when the address names none: the first of the first few photos
 * under the root whose Focal crop differs visibly from the centre crop in some frame, so that a
 * first visit shows what Focal is for; else the first photo. Their plans are asked for at once
 * and read in order: the first that differs decides without waiting for the rest, and its plan
 * is kept for refreshPlan rather than asked for again.
 */
async function showcase(photos) {
  const candidates = photos.slice(0, SHOWCASE_CANDIDATES).filter((photo) => photo.source.path);
  const requests = candidates.map((photo) => api.plan(photo.source, PLAN_FRAMES).catch(() => null));
  const differs = (plan) => plan.frames.some((frame, i) =>
    frame.crop && overlap(frame.crop, centreCrop(plan.image, FRAMES[i].aspect)) < SHOWCASE_OVERLAP);
  for (const [index, request] of requests.entries()) {
    const plan = await request;
    if (plan?.image && Array.isArray(plan.frames) && differs(plan)) {
      state.planned = { photo: candidates[index], plan };
      return candidates[index];
    }
  }
  return photos[0];
}

/** The centre crop of aspect `[p, q]` in an image of `{width, height}`: the largest, centred. */
function centreCrop(image, [p, q]) {
  const width = Math.min(image.width, (image.height * p) / q), height = Math.min(image.height, (image.width * q) / p);
  return { x: (image.width - width) / 2, y: (image.height - height) / 2, width, height };
}

/** Intersection over union of two rectangles `{x, y, width, height}`. */
function overlap(a, b) {
  const w = Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x));
  const h = Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));
  const union = a.width * a.height + b.width * b.height - w * h;
  return union > 0 ? (w * h) / union : 1;
}

/** The photo `#photo=<path>` or `#id=<sha256>` names, or null. */
function photoInAddress() {
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get('photo')) return state.photos.find((p) => p.source.path === hash.get('photo')) || null;
  if (hash.get('id')) {
    const id = hash.get('id').toLowerCase();
    let photo = state.photos.find((p) => p.id === id);
    if (!photo && /^[0-9a-f]{64}$/.test(id)) {
      photo = photoFromUpload({ id });
      state.photos.push(photo);
      renderPicker();
    }
    return photo || null;
  }
  return null;
}

start();
