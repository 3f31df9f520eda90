// Type declarations of focal-img.js: the <focal-img> element and its helpers. Checked by
// `make check-element` (Debian's tsc over check.ts; every name here is an export of the module).

/** A crop size in pixels. */
export interface FrameSize {
  width: number;
  height: number;
}

/**
 * The size, in device pixels, that an element of `width` x `height` CSS pixels requests: the
 * box's exact simple ratio when it has one (terms up to 32), else each side rounded up to `step`.
 * @param dpr device pixels per CSS pixel; default 1
 * @param step rounding step in device pixels; default 16
 * @param limit the most the source holds for this box's shape; default none
 * @returns null for an empty box
 */
export declare function frameSize(
  width: number, height: number, dpr?: number, step?: number, limit?: FrameSize | null,
): FrameSize | null;

/**
 * A signing function for an endpoint that takes `POST {"paths": [...]}` and answers
 * `{"urls": [...]}` in the same order; paths asked for in the same moment go in one request.
 */
export declare function batchSigner(
  endpoint: string | ((paths: string[]) => Promise<string[]>), init?: RequestInit,
): (path: string) => Promise<string>;

/** What `focalSources`, `focalSrcset` and `focalImgMarkup` take. */
export interface FocalSourceSettings {
  /** The photo, as `<focal-img src>` takes it. */
  src: string;
  /** The box's shape: "16:9", "4/5" or 1.5. */
  aspect: string | number;
  /** The Focal server's origin; default '' (the page's own). */
  server?: string;
  /** Widths in pixels; default 320, 480, 640, 800, 1024, 1280, 1600, 1920. */
  widths?: number[];
  /** Crop options by attribute name, e.g. `{zoom: 0.6, format: 'webp'}`. */
  options?: Record<string, string | number | boolean | null | undefined>;
  /** The URL of a path such as `320x180/smart/a.jpg`; default `{server}/unsafe/{path}`. */
  url?: (path: string) => string;
  /** The crop version for this aspect (a frame's `version` in `POST /v1/plan`): every URL then
   *  carries `?v=` and is cached by browsers for a year. */
  version?: string;
}

/** One crop URL per width, narrowest first. Throws a TypeError for a refused `src`. */
export declare function focalSources(settings: FocalSourceSettings): Array<FrameSize & { url: string }>;

/** A `srcset` value: each crop URL of `focalSources` with its width. */
export declare function focalSrcset(settings: FocalSourceSettings): string;

/** What `focalImgMarkup` takes besides the sources' settings. */
export interface FocalMarkupSettings extends FocalSourceSettings {
  /** The `<img sizes>`; default '100vw'. */
  sizes?: string;
  /** The image's text alternative; default ''. */
  alt?: string;
  /** Default 'lazy'; 'eager' above the fold. */
  loading?: 'lazy' | 'eager';
  /** e.g. 'high' for the page's main image; default none. */
  fetchpriority?: 'high' | 'low' | 'auto';
  /** The frame's inline preview (`preview` of a `POST /v1/plan` frame): shown until the image loads. */
  preview?: string;
}

/** `<focal-img …><img src srcset sizes width height loading alt></focal-img>`, as HTML. */
export declare function focalImgMarkup(settings: FocalMarkupSettings): string;

/** The `detail` of a `focal-load` event. */
export interface FocalLoadDetail {
  url: string;
  width: number;
  height: number;
  /** The image's media type (`image/avif` ...); null for an enhanced `<img>`. */
  type: string | null;
  strategy: string | null;
  plan: FocalPlan | null;
  subjects: Array<{ kind: string; x: number; y: number; width: number; height: number; confidence: number }>;
}

/** The `X-Focal-Plan` header, parsed. */
export interface FocalPlan {
  crop: [number, number, number, number];
  image: [number, number];
  strategy?: string;
  override?: number;
  /** The crop version: what the answer depends on beyond its URL (content, saved crop). */
  version?: string;
  [key: string]: unknown;
}

/** The `detail` of a `focal-error` event. */
export interface FocalErrorDetail {
  /** The HTTP status; 0 when the server could not be reached or `src` was refused. */
  status: number;
  code: string;
  message: string;
}

/** `<focal-img>`: the crop of a photo for its own box. */
export declare class FocalImg extends HTMLElement {
  static observedAttributes: string[];
  /** Refreshes every element showing `src` (every element when none is given). */
  static refresh(src?: string): void;
  /** `async (path) => url`: signs `WxH/smart/.../src` for a server without unsafe URLs. */
  sign: ((path: string) => Promise<string>) | null;
  readonly state: 'empty' | 'loading' | 'loaded' | 'error';
  readonly currentSrc: string;
  readonly naturalWidth: number;
  readonly naturalHeight: number;
  readonly plan: FocalPlan | null;
  /** Asks again, past every cache. */
  refresh(): void;
}

declare global {
  interface HTMLElementTagNameMap {
    'focal-img': FocalImg;
  }
  interface HTMLElementEventMap {
    'focal-load': CustomEvent<FocalLoadDetail>;
    'focal-error': CustomEvent<FocalErrorDetail>;
  }
}
