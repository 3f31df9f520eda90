// Uses every declaration of focal-img.d.ts as a page would; `make check-element` compiles it with
// tsc --strict (nothing is emitted).
import { FocalImg, batchSigner, focalImgMarkup, focalSources, focalSrcset, frameSize } from './focal-img.js';

const size = frameSize(320, 180, 2);
const width: number = size ? size.width : 0;
const sign: (path: string) => Promise<string> = batchSigner('/focal-sign', { headers: { Authorization: 'Bearer x' } });
const urls: string[] = focalSources({ src: 'team/offsite.jpg', aspect: '16:9', widths: [320, 640] }).map((s) => s.url);
const srcset: string = focalSrcset({ src: 'a.jpg', aspect: 1.5, server: 'https://img.example', options: { zoom: 0.6 } });
const html: string = focalImgMarkup({ src: 'a.jpg', aspect: '4:5', alt: 'A', loading: 'eager', fetchpriority: 'high' });

const element = document.createElement('focal-img');
const same: FocalImg = element;
same.sign = sign;
element.addEventListener('focal-load', (event) => {
  const type: string | null = event.detail.type;
  const crop: [number, number, number, number] | undefined = event.detail.plan?.crop;
  console.log(type, crop, event.detail.subjects.length, element.state, element.naturalWidth);
});
element.addEventListener('focal-error', (event) => console.log(event.detail.status, event.detail.code));
FocalImg.refresh('a.jpg');
element.refresh();
console.log(width, urls, srcset, html, element.currentSrc, element.plan);

// The declarations are not loose: each of these must be refused (tsc fails on an unused directive).
// @ts-expect-error: loading is 'lazy' or 'eager'
focalImgMarkup({ src: 'a.jpg', aspect: '1:1', loading: 'soon' });
// @ts-expect-error: src is required
focalSources({ aspect: '1:1' });
// @ts-expect-error: state is read-only
element.state = 'loaded';
