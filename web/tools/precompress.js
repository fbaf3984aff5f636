// Writes a brotli and a gzip copy beside each file of web/dist that web/tools/serve.js serves and beside the
// shipped poetry model (page.js → page.js.br, page.js.gz), so the server sends compressed bytes without
// compressing on every request. Run by build.sh's web target, after web/tools/bundle.js. The copies are build
// outputs, never committed (.gitignore), and reproducible: the same file gives the same bytes (node:zlib's
// gzip header holds no name and a zero time).
import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { ENCODINGS, contentType, isFresh, statOrNull } from './serve.js';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
const { BROTLI_PARAM_QUALITY, BROTLI_MAX_QUALITY, BROTLI_PARAM_SIZE_HINT, Z_BEST_COMPRESSION } = zlib.constants;

/** Each of the server's encodings at its smallest: the copies are made once, at build time. */
const COMPRESSORS = {
  br: (bytes) => brotli(bytes, { params: { [BROTLI_PARAM_QUALITY]: BROTLI_MAX_QUALITY, [BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
  gzip: (bytes) => gzip(bytes, { level: Z_BEST_COMPRESSION }),
};

// web/, the folder above this one (a path, not a URL: these tools read the whole folder, they import none of it).
const web = join(dirname(fileURLToPath(import.meta.url)), '..', '/');

/**
 * What the server may send compressed: each file of web/dist of a kind it serves (not the copies), and the model
 * with its card. Not web/dist/widget/: a course copies that folder to its own server, which would not use them.
 */
function originals() {
  const dist = readdirSync(`${web}dist`, { recursive: true }).filter((name) => !name.startsWith('widget/')).map((name) => `${web}dist/${name}`)
    .filter((path) => contentType(path) && statSync(path).isFile());
  return [...dist, `${web}poems/poems.safetensors`, `${web}poems/poems.card.json`];
}

/** Writes the copies of `path` that are missing or older than it; a copy no smaller than the original (a woff2 font) is left out. */
async function precompress(path) {
  const original = statSync(path);
  const stale = ENCODINGS.filter(({ suffix }) => !isFresh(original, statOrNull(path + suffix)));
  if (stale.length === 0) return;
  const bytes = readFileSync(path);
  await Promise.all(stale.map(async ({ name, suffix }) => {
    const packed = await COMPRESSORS[name](bytes);
    if (packed.length < bytes.length) writeFileSync(path + suffix, packed);
    else rmSync(path + suffix, { force: true });
  }));
}

await Promise.all(originals().map(precompress));
