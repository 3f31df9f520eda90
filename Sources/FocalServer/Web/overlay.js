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
  "saliency": {"label": "Salient", "colour": "#eab308"},
  "bicycle": {"label": "Bicycle", "colour": "#51d678"},
  "car": {"label": "Car", "colour": "#812dbe"},
  "motorbike": {"label": "Motorbike", "colour": "#d6c651"},
  "aeroplane": {"label": "Aeroplane", "colour": "#2da6be"},
  "bus": {"label": "Bus", "colour": "#d65199"},
  "train": {"label": "Train", "colour": "#51be2d"},
  "truck": {"label": "Truck", "colour": "#5751d6"},
  "boat": {"label": "Boat", "colour": "#be5d2d"},
  "traffic_light": {"label": "Traffic light", "colour": "#51d6a5"},
  "fire_hydrant": {"label": "Fire hydrant", "colour": "#b22dbe"},
  "stop_sign": {"label": "Stop sign", "colour": "#bad651"},
  "parking_meter": {"label": "Parking meter", "colour": "#2d75be"},
  "bench": {"label": "Bench", "colour": "#d6516d"},
  "bird": {"label": "Bird", "colour": "#2dbe39"},
  "horse": {"label": "Horse", "colour": "#51d6d1"},
  "sheep": {"label": "Sheep", "colour": "#be2d99"},
  "cow": {"label": "Cow", "colour": "#8ed651"},
  "elephant": {"label": "Elephant", "colour": "#2d44be"},
  "bear": {"label": "Bear", "colour": "#d66251"},
  "zebra": {"label": "Zebra", "colour": "#2dbe6a"},
  "giraffe": {"label": "Giraffe", "colour": "#b051d6"},
  "backpack": {"label": "Backpack", "colour": "#bebe2d"},
  "umbrella": {"label": "Umbrella", "colour": "#51afd6"},
  "handbag": {"label": "Handbag", "colour": "#be2d69"},
  "tie": {"label": "Tie", "colour": "#62d651"},
  "suitcase": {"label": "Suitcase", "colour": "#452dbe"},
  "frisbee": {"label": "Frisbee", "colour": "#d68f51"},
  "skis": {"label": "Skis", "colour": "#2dbe9a"},
  "snowboard": {"label": "Snowboard", "colour": "#d651d0"},
  "sports_ball": {"label": "Sports ball", "colour": "#8dbe2d"},
  "kite": {"label": "Kite", "colour": "#5183d6"},
  "baseball_bat": {"label": "Baseball bat", "colour": "#be2d38"},
  "baseball_glove": {"label": "Baseball glove", "colour": "#51d66e"},
  "skateboard": {"label": "Skateboard", "colour": "#762dbe"},
  "surfboard": {"label": "Surfboard", "colour": "#d6bb51"},
  "tennis_racket": {"label": "Tennis racket", "colour": "#2db1be"},
  "bottle": {"label": "Bottle", "colour": "#d651a4"},
  "wine_glass": {"label": "Wine glass", "colour": "#5cbe2d"},
  "cup": {"label": "Cup", "colour": "#5156d6"},
  "fork": {"label": "Fork", "colour": "#be522d"},
  "knife": {"label": "Knife", "colour": "#51d69a"},
  "spoon": {"label": "Spoon", "colour": "#a72dbe"},
  "bowl": {"label": "Bowl", "colour": "#c5d651"},
  "banana": {"label": "Banana", "colour": "#2d81be"},
  "apple": {"label": "Apple", "colour": "#d65177"},
  "sandwich": {"label": "Sandwich", "colour": "#2dbe2e"},
  "orange": {"label": "Orange", "colour": "#7951d6"},
  "broccoli": {"label": "Broccoli", "colour": "#be822d"},
  "carrot": {"label": "Carrot", "colour": "#51d6c7"},
  "hot_dog": {"label": "Hot dog", "colour": "#be2da5"},
  "pizza": {"label": "Pizza", "colour": "#98d651"},
  "donut": {"label": "Donut", "colour": "#2d50be"},
  "cake": {"label": "Cake", "colour": "#d65851"},
  "chair": {"label": "Chair", "colour": "#2dbe5e"},
  "sofa": {"label": "Sofa", "colour": "#a651d6"},
  "pottedplant": {"label": "Pottedplant", "colour": "#beb32d"},
  "bed": {"label": "Bed", "colour": "#51bad6"},
  "diningtable": {"label": "Diningtable", "colour": "#be2d74"},
  "toilet": {"label": "Toilet", "colour": "#6cd651"},
  "tvmonitor": {"label": "Tvmonitor", "colour": "#3a2dbe"},
  "laptop": {"label": "Laptop", "colour": "#d68451"},
  "mouse": {"label": "Mouse", "colour": "#2dbe8f"},
  "remote": {"label": "Remote", "colour": "#d251d6"},
  "keyboard": {"label": "Keyboard", "colour": "#98be2d"},
  "cell_phone": {"label": "Cell phone", "colour": "#518dd6"},
  "microwave": {"label": "Microwave", "colour": "#be2d43"},
  "oven": {"label": "Oven", "colour": "#51d663"},
  "toaster": {"label": "Toaster", "colour": "#6b2dbe"},
  "sink": {"label": "Sink", "colour": "#d6b151"},
  "refrigerator": {"label": "Refrigerator", "colour": "#2dbdbe"},
  "book": {"label": "Book", "colour": "#d651ae"},
  "clock": {"label": "Clock", "colour": "#68be2d"},
  "vase": {"label": "Vase", "colour": "#5161d6"},
  "scissors": {"label": "Scissors", "colour": "#be462d"},
  "teddy_bear": {"label": "Teddy bear", "colour": "#51d690"},
  "hair_drier": {"label": "Hair drier", "colour": "#9b2dbe"},
  "toothbrush": {"label": "Toothbrush", "colour": "#cfd651"}
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
