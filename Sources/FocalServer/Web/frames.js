// The gallery's frames: each card holds a <focal-img> and the centre crop of the same box, a
// corner to drag (pointer, touch, or arrow keys on the focused corner) and the frame's size.

/** The frames shown, in CSS pixels at their named aspect. `locked` frames keep their aspect. */
export const FRAMES = [
  { id: 'banner', name: 'Banner', aspect: [16, 9], width: 352, height: 198 },
  { id: 'avatar', name: 'Avatar', aspect: [1, 1], width: 160, height: 160 },
  { id: 'card', name: 'Card', aspect: [4, 5], width: 192, height: 240 },
  { id: 'story', name: 'Story', aspect: [9, 16], width: 144, height: 256 },
  { id: 'circle', name: 'Circle', aspect: [1, 1], width: 160, height: 160, round: true, locked: true },
];

const MIN_SIDE = 48;
const PAIR_GAP = 14;   // .pair's gap in app.css
const MAX_HEIGHT = 720;

/**
 * A card for `frame`, built from the page's template.
 * @param {HTMLTemplateElement} template
 * @param {object} frame   one of FRAMES
 * @param {{onEdit: Function, onActivate: Function}} handlers
 */
export function createCard(template, frame, { onEdit, onActivate }) {
  const card = template.content.firstElementChild.cloneNode(true);
  card.dataset.frame = frame.id;
  card.classList.toggle('round', !!frame.round);
  card.querySelector('.frame-name').textContent = frame.name;
  card.querySelector('.aspect').textContent = frame.aspect.join(':');
  card.setAttribute('aria-label', `${frame.name}, ${frame.aspect.join(':')}`);
  const focal = card.querySelector('focal-img.focal');
  const centre = card.querySelector('focal-img.centre');
  focal.setAttribute('alt', `${frame.name} crop by Focal`);
  centre.setAttribute('alt', `${frame.name} centre crop`);
  const grip = card.querySelector('.grip');
  grip.setAttribute('aria-label', `Resize the ${frame.name.toLowerCase()} frame (arrow keys)`);
  const badge = card.querySelector('.strategy');
  const restore = card.querySelector('.reset-size');

  const view = {
    card, focal, centre, frame,
    size: { width: frame.width, height: frame.height },
    /** Whether the frame has its named aspect (a saved crop for that aspect applies). */
    get atAspect() {
      const [a, b] = frame.aspect;
      return Math.abs(this.size.width * b - this.size.height * a) <= Math.max(a, b) / 2;
    },
    /** Asks for a size; it is applied as far as the screen allows (see fit). */
    setSize(width, height) {
      this.wanted = { width, height };
      this.fit();
    },
    /** Applies the wanted size, narrower (same shape) when the list is narrower. */
    fit() {
      let { width, height } = this.wanted;
      const most = maxWidth(card), half = (most - PAIR_GAP) / 2;
      let scale = 1;
      if (width > most) scale = most / width;
      // At its first size on a narrow screen, a small frame shrinks a little to keep its pair side by side.
      const first = this.wanted.width === frame.width && this.wanted.height === frame.height;
      if (first && width > half && width <= half * 1.25) scale = half / width;
      width *= scale; height *= scale;
      width = Math.round(Math.max(MIN_SIDE, width));
      height = Math.round(Math.max(MIN_SIDE, Math.min(height, MAX_HEIGHT)));
      if (frame.locked) height = Math.round((width * frame.aspect[1]) / frame.aspect[0]);
      this.size = { width, height };
      card.style.setProperty('--fw', width);
      card.style.setProperty('--fh', height);
      card.querySelector('.size').textContent = `${width} × ${height}` + (this.atAspect ? '' : ' · free');
      const reshaped = this.wanted.width !== frame.width || this.wanted.height !== frame.height;
      card.classList.toggle('reshaped', reshaped);
      restore.hidden = !reshaped;
    },
  };
  view.setSize(frame.width, frame.height);

  focal.addEventListener('focal-load', (e) => {
    const strategy = e.detail.strategy || 'unknown';
    badge.textContent = strategy === 'manual' ? 'saved crop' : strategy;
    badge.dataset.strategy = strategy;
    card.classList.remove('failed');
  });
  focal.addEventListener('focal-error', () => {
    badge.textContent = 'failed';
    badge.dataset.strategy = 'error';
    card.classList.add('failed');
  });
  const edit = card.querySelector('.edit');
  edit.setAttribute('aria-label', `Edit the ${frame.name.toLowerCase()} crop (${frame.aspect.join(':')})`);
  edit.addEventListener('click', () => onEdit(view));
  restore.addEventListener('click', () => view.setSize(frame.width, frame.height));
  for (const type of ['pointerenter', 'focusin']) card.addEventListener(type, () => onActivate(view));
  makeResizable(grip, view);
  return view;
}

/** The widest a frame may be: its list's width (the two boxes then stack). */
function maxWidth(card) {
  const list = card.parentElement;
  if (!list) return 4096;
  const style = getComputedStyle(card);
  const chrome = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight) +
    parseFloat(style.borderLeftWidth) + parseFloat(style.borderRightWidth);
  return Math.max(MIN_SIDE, Math.floor(list.clientWidth - chrome));
}

/** Dragging the corner (any pointer) or arrow keys on it reshape the frame. */
function makeResizable(grip, view) {
  let start = null;
  grip.addEventListener('pointerdown', (e) => {
    grip.setPointerCapture(e.pointerId);
    start = { x: e.clientX, y: e.clientY, ...view.size };
    view.card.classList.add('resizing');
    e.preventDefault();
  });
  grip.addEventListener('pointermove', (e) => {
    if (!start || !grip.hasPointerCapture(e.pointerId)) return;
    const dx = e.clientX - start.x, dy = e.clientY - start.y;
    if (view.frame.locked) {
      const d = Math.abs(dx) > Math.abs(dy) ? dx : dy;   // one size for both sides
      view.setSize(start.width + d, start.height + d);
    } else view.setSize(start.width + dx, start.height + dy);
  });
  const end = () => { start = null; view.card.classList.remove('resizing'); };
  grip.addEventListener('pointerup', end);
  grip.addEventListener('pointercancel', end);
  grip.addEventListener('keydown', (e) => {
    const step = e.shiftKey ? 40 : 8;
    const moves = { ArrowRight: [step, 0], ArrowLeft: [-step, 0], ArrowDown: [0, step], ArrowUp: [0, -step] };
    const move = moves[e.key];
    if (!move) return;
    e.preventDefault();
    const [dx, dy] = view.frame.locked ? [move[0] || move[1], move[0] || move[1]] : move;
    view.setSize(view.size.width + dx, view.size.height + dy);
  });
}
