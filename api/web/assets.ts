// The dashboard's static files (its stylesheet, script and icon, htmx and uPlot from their packages): read once, named
// by their content's hash (/assets/app.3f2a9c1d0b7e.css) so a browser may keep them for a year, and compressed
// once (Brotli and gzip) so each request only picks the encoding the browser accepts.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { projectPath } from '../../shared/paths.js';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { encodingFor } from './compression.js';

export type AssetName = 'app.css' | 'app.js' | 'htmx.js' | 'uplot.js' | 'uplot.css' | 'favicon.svg';

const STATIC_DIR = projectPath('api', 'web', 'static');
const fromPackage = (specifier: string): string => createRequire(import.meta.url).resolve(specifier);

/** Where each file comes from: ours in web/static, the vendored ones from their pinned packages. */
const SOURCES: Readonly<Record<AssetName, string>> = {
  'app.css': join(STATIC_DIR, 'app.css'),
  'app.js': join(STATIC_DIR, 'app.js'),
  'favicon.svg': join(STATIC_DIR, 'favicon.svg'),
  'htmx.js': fromPackage('htmx.org/dist/htmx.min.js'),
  'uplot.js': fromPackage('uplot/dist/uPlot.iife.min.js'),
  'uplot.css': fromPackage('uplot/dist/uPlot.min.css'),
};

const TYPES = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8', svg: 'image/svg+xml' } as const;

interface Asset {
  url: string;
  contentType: string;
  identity: Buffer;
  gzip: Buffer;
  br: Buffer;
}

function load(name: AssetName): Asset {
  const identity = readFileSync(SOURCES[name]);
  const [base, ext] = name.split('.') as [string, keyof typeof TYPES];
  return {
    url: `/assets/${base}.${createHash('sha256').update(identity).digest('hex').slice(0, 12)}.${ext}`,
    contentType: TYPES[ext],
    identity,
    gzip: gzipSync(identity, { level: 9 }),
    br: brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
  };
}

let loaded: ReadonlyMap<AssetName, Asset> | undefined;
let byUrl: ReadonlyMap<string, Asset> | undefined;

function assets(): ReadonlyMap<AssetName, Asset> {
  loaded ??= new Map((Object.keys(SOURCES) as AssetName[]).map((name) => [name, load(name)]));
  byUrl ??= new Map([...loaded.values()].map((a) => [a.url, a]));
  return loaded;
}

/** The URL a page links the asset by (it changes whenever the file does). */
export const assetUrl = (name: AssetName): string => assets().get(name)!.url;

export const ASSET_PREFIX = '/assets/';

/** Answers GET /assets/…: the file in the best encoding the browser takes, cached for good; 404 for any other name. */
export function serveAsset(req: IncomingMessage, res: ServerResponse): void {
  assets();
  const asset = byUrl!.get((req.url ?? '').split('?')[0]!);
  if (!asset) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' }).end('Not found');
    return;
  }
  const encoding = encodingFor(req);
  const body = encoding === 'identity' ? asset.identity : asset[encoding];
  res.writeHead(200, {
    'Content-Type': asset.contentType,
    'Content-Length': body.length,
    'Cache-Control': 'public, max-age=31536000, immutable',
    'X-Content-Type-Options': 'nosniff',
    Vary: 'Accept-Encoding',
    ...(encoding === 'identity' ? {} : { 'Content-Encoding': encoding }),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
