// "What Focal saw": the subjects of /v1/plan drawn over the original in their kind's colour with
// their confidence, the padded region a frame's crop was built around, and the crop itself.
// Boxes are placed in percent of the image, so the drawing follows the picture's size.

// Each kind's label and colour, from the kind table (SubjectKindTraits), generated: `make
// generated` writes it between the markers, so the page, the planner and the debug overlays agree.
export const KINDS = /*focal:kinds*/{
  "face": {"label": "Face", "colour": "#22c55e"},
  "head": {"label": "Head", "colour": "#86efac"},
  "cat": {"label": "Cat", "colour": "#f59e0b"},
  "dog": {"label": "Dog", "colour": "#ec4899"},
  "person": {"label": "Person", "colour": "#3b82f6"},
  "saliency": {"label": "Salient", "colour": "#eab308"}
}/*/focal:kinds*/;

const percent = (value, whole) => `${((value / whole) * 100).toFixed(3)}%`;

function place(el, box, image) {
  Object.assign(el.style, {
    left: percent(box.x, image.width), top: percent(box.y, image.height),
    width: percent(box.width, image.width), height: percent(box.height, image.height),
  });
  return el;
}

function div(className, parent) {
  const el = document.createElement('div');
  el.className = className;
  parent.append(el);
  return el;
}

/**
 * Draws into `container` (positioned over the picture).
 * @param {HTMLElement} container
 * @param {{image:{width,height}, subjects:Array}} plan   from /v1/plan
 * @param {{crop?:{x,y,width,height}, centre?:{x,y,width,height}, region?:object, used?:Array, label?:string}} frame
 */
export function drawOverlay(container, plan, frame = {}) {
  container.replaceChildren();
  if (!plan) return;
  const image = plan.image;
  if (frame.crop) {
    // The shade outside the crop comes from the crop box's own enormous shadow.
    const crop = place(div('ov-crop', container), frame.crop, image);
    if (frame.label) div('ov-crop-label', crop).textContent = frame.label;
  }
  if (frame.centre) place(div('ov-centre', container), frame.centre, image);
  if (frame.region) place(div('ov-region', container), frame.region, image);
  const used = new Set((frame.used || []).map((s) => `${s.kind}:${Math.round(s.x)}:${Math.round(s.y)}`));
  const tags = [];
  for (const subject of plan.subjects) {
    const kind = KINDS[subject.kind] || { label: subject.kind, colour: 'white' };
    const box = place(div('ov-subject', container), subject, image);
    box.style.setProperty('--kind', kind.colour);
    box.classList.toggle('used', used.has(`${subject.kind}:${Math.round(subject.x)}:${Math.round(subject.y)}`));
    const tag = div('ov-tag', box);
    tag.textContent = `${kind.label} ${Math.round(subject.confidence * 100)}%`;
    box.title = tag.textContent;
    tags.push({ tag, confidence: subject.confidence, kind, subject });
  }
  separateTags(container, tags);
}

/**
 * Moves labels that would cover one another (group photos: many faces side by side): the most
 * confident keeps its place above its box's top left corner; each other one takes the first free
 * place among its box's corners, then the short form (the percentage alone); a label with no free
 * place is hidden (its box keeps the text as a tooltip). The crop's own label is never covered.
 */
function separateTags(container, tags) {
  const placed = [...container.querySelectorAll('.ov-crop-label')].map((label) => label.getBoundingClientRect());
  const overlaps = (r) => placed.some((p) => r.left < p.right && p.left < r.right && r.top < p.bottom && p.top < r.bottom);
  const corners = ['', 'ov-tag-bottom', 'ov-tag-right', 'ov-tag-bottom ov-tag-right'];
  tags.sort((a, b) => b.confidence - a.confidence);
  for (const { tag, subject } of tags) {
    let free = null;
    for (const short of [false, true]) {
      if (short) tag.textContent = `${Math.round(subject.confidence * 100)}%`;
      for (const corner of corners) {
        tag.className = `ov-tag ${corner}`.trim();
        const rect = tag.getBoundingClientRect();
        if (!overlaps(rect)) { free = rect; break; }
      }
      if (free) break;
    }
    if (free) placed.push(free); else tag.hidden = true;
  }
}

/** The legend: each subject found, with its colour and confidence. */
export function drawLegend(list, plan) {
  list.replaceChildren();
  if (!plan) return;
  if (!plan.subjects.length) {
    const item = document.createElement('li');
    item.className = 'legend-empty';
    item.textContent = 'Nothing detected: Focal falls back to the centre.';
    list.append(item);
    return;
  }
  const counts = new Map();
  for (const s of plan.subjects) {
    const entry = counts.get(s.kind) || { n: 0, best: 0 };
    entry.n += 1;
    entry.best = Math.max(entry.best, s.confidence);
    counts.set(s.kind, entry);
  }
  for (const [kind, { n, best }] of counts) {
    const info = KINDS[kind] || { label: kind, colour: 'white' };
    const item = document.createElement('li');
    item.style.setProperty('--kind', info.colour);
    item.innerHTML = '<span class="swatch"></span><span class="legend-kind"></span><span class="legend-score"></span>';
    item.querySelector('.legend-kind').textContent = n > 1 ? `${info.label} × ${n}` : info.label;
    item.querySelector('.legend-score').textContent = `${Math.round(best * 100)}%`;
    list.append(item);
  }
}
