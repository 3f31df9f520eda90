// The crop editor: the photo pans and zooms under shaded blockers around a fixed opening of the
// frame's aspect, as the iOS square cropper did. The state is the crop itself, in source pixels;
// the view (photo position and scale, blockers) is drawn from it.

/** A crop of a fixed aspect inside a W×H image, kept covering the opening (inside the image). */
export class CropModel {
  /**
   * @param {number} W  image width, upright source pixels
   * @param {number} H  image height
   * @param {number} a  aspect width term (16 of 16:9)
   * @param {number} b  aspect height term
   * @param {{x:number,y:number,width:number}} crop  where to start
   */
  constructor(W, H, a, b, crop) {
    Object.assign(this, { W, H, a, b });
    this.maxWidth = Math.min(W, (H * a) / b);
    // Zoom in at most until the crop is 24 source pixels on its shorter side (or 8×).
    this.minWidth = Math.min(this.maxWidth, Math.max(this.maxWidth / 8, 24 * Math.max(1, a / b)));
    this.x = crop.x; this.y = crop.y; this.width = crop.width;
    this.clamp();
  }

  get height() { return (this.width * this.b) / this.a; }

  /** Width within its bounds, then the position inside the image. */
  clamp() {
    this.width = Math.min(this.maxWidth, Math.max(this.minWidth, this.width));
    this.x = Math.min(this.W - this.width, Math.max(0, this.x));
    this.y = Math.min(this.H - this.height, Math.max(0, this.y));
  }

  /** Moves the crop by source pixels. */
  pan(dx, dy) { this.x += dx; this.y += dy; this.clamp(); }

  /**
   * Zooms by `factor` (> 1 zooms in: a smaller crop) keeping the source point under (u, v) —
   * fractions of the opening — where it is.
   */
  zoom(factor, u = 0.5, v = 0.5) {
    const px = this.x + u * this.width, py = this.y + v * this.height;
    this.width /= factor;
    this.width = Math.min(this.maxWidth, Math.max(this.minWidth, this.width));
    this.x = px - u * this.width;
    this.y = py - v * this.height;
    this.clamp();
  }

  /**
   * The crop in whole source pixels with exactly the aspect: sides are multiples of the reduced
   * terms, centred on the current crop and inside the image.
   */
  rounded() {
    const d = gcd(this.a, this.b), ra = this.a / d, rb = this.b / d;
    const most = Math.max(1, Math.floor(Math.min(this.W / ra, this.H / rb)));
    const k = Math.min(most, Math.max(1, Math.round(this.width / ra)));
    const width = k * ra, height = k * rb;
    const x = Math.min(this.W - width, Math.max(0, Math.round(this.x + (this.width - width) / 2)));
    const y = Math.min(this.H - height, Math.max(0, Math.round(this.y + (this.height - height) / 2)));
    return { x, y, width, height };
  }
}

function gcd(a, b) { while (b) [a, b] = [b, a % b]; return a; }

/** Fraction of the stage kept free around the opening, so the photo shows past the blockers. */
const MARGIN = 0.1;

/**
 * The editor dialog. `open()` resolves when it closes: 'saved', 'reset' or 'cancelled'.
 * Saving and resetting are done by the callbacks the page gives, which may throw: the error is
 * shown in the dialog and it stays open.
 */
export class CropEditor {
  constructor(dialog) {
    this.dialog = dialog;
    this.stage = dialog.querySelector('#stage');
    this.photo = dialog.querySelector('#stage-photo');
    this.opening = dialog.querySelector('#opening');
    this.blockers = Object.fromEntries([...dialog.querySelectorAll('.blocker')].map((el) => [el.dataset.side, el]));
    this.readout = dialog.querySelector('#crop-readout');
    // The readout changes on every frame of a drag: a screen reader hears it once the crop rests.
    this.status = dialog.querySelector('#crop-status');
    this.statusTimer = 0;
    this.error = dialog.querySelector('#editor-error');
    this.saveButton = dialog.querySelector('#editor-save');
    this.resetButton = dialog.querySelector('#editor-reset');
    this.pointers = new Map();   // pointerId → last {x, y}
    this.model = null;

    new ResizeObserver(() => this.model && this.draw()).observe(this.stage);
    this.stage.addEventListener('pointerdown', (e) => this.#pointerDown(e));
    this.stage.addEventListener('pointermove', (e) => this.#pointerMove(e));
    for (const type of ['pointerup', 'pointercancel', 'lostpointercapture']) {
      this.stage.addEventListener(type, (e) => this.#pointerUp(e));
    }
    this.stage.addEventListener('wheel', (e) => this.#wheel(e), { passive: false });
    this.stage.addEventListener('keydown', (e) => this.#key(e));
    dialog.querySelector('#zoom-in').addEventListener('click', () => this.#zoomCentre(1.25));
    dialog.querySelector('#zoom-out').addEventListener('click', () => this.#zoomCentre(1 / 1.25));
    this.saveButton.addEventListener('click', () => this.#act('saved', () => this.onSave(this.model.rounded())));
    this.resetButton.addEventListener('click', () => this.#act('reset', () => this.onReset()));
    dialog.addEventListener('close', () => {
      this.photo.removeAttribute('src');
      this.pointers.clear();
      this.resolve?.(this.outcome || 'cancelled');
      this.resolve = null;
    });
  }

  /**
   * Opens the editor.
   * @param {object} o
   * @param {string} o.title           e.g. "Banner · 16:9"
   * @param {string} o.photoURL        the whole upright photo
   * @param {{width:number,height:number}} o.image  its size in source pixels
   * @param {[number, number]} o.aspect  e.g. [16, 9]
   * @param {{x,y,width,height}} o.crop  where to start (Focal's crop, or the saved one)
   * @param {string} o.origin          what the start is, shown under the title
   * @param {boolean} o.saved          whether a saved crop exists (Reset is offered)
   * @param {(crop) => Promise} o.onSave
   * @param {() => Promise} o.onReset
   */
  open(o) {
    this.dialog.querySelector('#editor-title').textContent = `Edit crop · ${o.title}`;
    this.dialog.querySelector('#editor-origin').textContent = o.origin;
    this.model = new CropModel(o.image.width, o.image.height, o.aspect[0], o.aspect[1], o.crop);
    this.onSave = o.onSave;
    this.onReset = o.onReset;
    this.resetButton.hidden = !o.saved;
    this.error.textContent = '';
    this.outcome = null;
    this.busy(false);
    this.photo.src = o.photoURL;
    this.dialog.showModal();
    this.draw();
    this.stage.focus();
    return new Promise((resolve) => { this.resolve = resolve; });
  }

  busy(on) {
    for (const button of [this.saveButton, this.resetButton]) button.disabled = on;
    this.dialog.classList.toggle('busy', on);
  }

  /** Runs a save or reset; closes on success, shows the error otherwise. */
  async #act(outcome, action) {
    this.busy(true);
    this.error.textContent = '';
    try {
      await action();
      this.outcome = outcome;
      this.dialog.close(outcome);
    } catch (error) {
      this.error.textContent = error.message || String(error);
    } finally {
      this.busy(false);
    }
  }

  // --- drawing ---

  /** The opening's rectangle in stage pixels: the largest of the aspect inside the margins. */
  #openingRect() {
    const sw = this.stage.clientWidth, sh = this.stage.clientHeight;
    const m = this.model, ratio = m.a / m.b;
    const room = { w: sw * (1 - 2 * MARGIN), h: sh * (1 - 2 * MARGIN) };
    const w = Math.min(room.w, room.h * ratio), h = w / ratio;
    return { x: (sw - w) / 2, y: (sh - h) / 2, w, h, sw, sh };
  }

  /** Places the photo under the opening and the blockers around it. */
  draw() {
    const m = this.model, o = this.#openingRect();
    this.scale = o.w / m.width;   // stage pixels per source pixel
    Object.assign(this.photo.style, {
      width: `${m.W * this.scale}px`, height: `${m.H * this.scale}px`,
      transform: `translate(${o.x - m.x * this.scale}px, ${o.y - m.y * this.scale}px)`,
    });
    Object.assign(this.opening.style, { left: `${o.x}px`, top: `${o.y}px`, width: `${o.w}px`, height: `${o.h}px` });
    const px = (v) => `${v}px`;
    Object.assign(this.blockers.top.style, { left: 0, top: 0, width: '100%', height: px(o.y) });
    Object.assign(this.blockers.bottom.style, { left: 0, top: px(o.y + o.h), width: '100%', height: px(o.sh - o.y - o.h) });
    Object.assign(this.blockers.left.style, { left: 0, top: px(o.y), width: px(o.x), height: px(o.h) });
    Object.assign(this.blockers.right.style, { left: px(o.x + o.w), top: px(o.y), width: px(o.sw - o.x - o.w), height: px(o.h) });
    const r = m.rounded();
    this.readout.value = `${r.width} × ${r.height} px at ${r.x}, ${r.y}`;
    clearTimeout(this.statusTimer);
    this.statusTimer = setTimeout(() => { this.status.textContent = `Crop ${this.readout.value}`; }, 500);
    this.stage.dataset.crop = JSON.stringify(r);   // for tests and curious people
  }

  // --- input ---

  #pointerDown(e) {
    if (e.button !== 0 && e.pointerType === 'mouse') return;
    this.stage.setPointerCapture(e.pointerId);
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    this.stage.classList.add('dragging');
    e.preventDefault();
    this.stage.focus();
  }

  #pointerMove(e) {
    const last = this.pointers.get(e.pointerId);
    if (!last) return;
    const points = [...this.pointers.values()];
    if (points.length === 1) {
      this.model.pan(-(e.clientX - last.x) / this.scale, -(e.clientY - last.y) / this.scale);
    } else {
      // Pinch: the two-finger distance zooms around their midpoint, which also pans.
      const [a, b] = points, other = a === last ? b : a;
      const before = Math.hypot(last.x - other.x, last.y - other.y);
      const after = Math.hypot(e.clientX - other.x, e.clientY - other.y);
      const mid0 = { x: (last.x + other.x) / 2, y: (last.y + other.y) / 2 };
      const mid1 = { x: (e.clientX + other.x) / 2, y: (e.clientY + other.y) / 2 };
      if (before > 0 && after > 0) this.#zoomAt(after / before, mid0.x, mid0.y);
      this.model.pan(-(mid1.x - mid0.x) / this.scale, -(mid1.y - mid0.y) / this.scale);
    }
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    this.draw();
  }

  #pointerUp(e) {
    this.pointers.delete(e.pointerId);
    if (!this.pointers.size) this.stage.classList.remove('dragging');
  }

  #wheel(e) {
    e.preventDefault();
    const delta = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY;
    this.#zoomAt(Math.exp(-delta * 0.0015), e.clientX, e.clientY);
    this.draw();
  }

  /** Zooms keeping the photo point under the client position (x, y) still. */
  #zoomAt(factor, x, y) {
    const box = this.stage.getBoundingClientRect(), o = this.#openingRect();
    this.model.zoom(factor, (x - box.left - o.x) / o.w, (y - box.top - o.y) / o.h);
    this.scale = o.w / this.model.width;
  }

  #zoomCentre(factor) { this.model.zoom(factor); this.draw(); }

  #key(e) {
    const step = (e.shiftKey ? 50 : 10) / this.scale;
    const moves = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
    if (moves[e.key]) {
      // The arrow moves the photo, as dragging does: the crop goes the other way.
      this.model.pan(...moves[e.key]);
    } else if (e.key === '+' || e.key === '=') this.model.zoom(1.1);
    else if (e.key === '-' || e.key === '_') this.model.zoom(1 / 1.1);
    else return;
    e.preventDefault();
    this.draw();
  }
}
