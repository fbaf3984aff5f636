// The SHA-256 of the file a teacher picked, in a worker of its own beside GPT-2's (web/gpt2/gpt2-worker.js): the
// model is read into the core on one core while the file is hashed on another, so the first result does not wait
// for the digest. Bundled as web/dist/gpt2-hash-worker.js; it alone imports hash-wasm's SHA-256.
//
// Message in:   { file (a File or Blob) }
// Messages out: { type: 'sha256', sha256 (hex) }, or { type: 'sha256', sha256: '' } when the file cannot be read
import { createSHA256 } from 'hash-wasm';

const PIECE_BYTES = 16 << 20; // a piece read while the one before is hashed

addEventListener('message', async ({ data: { file } }) => {
  try {
    const hash = (await createSHA256()).init();
    let next = file.slice(0, PIECE_BYTES).arrayBuffer();
    for (let offset = 0; offset < file.size; offset += PIECE_BYTES) {
      const piece = new Uint8Array(await next);
      if (offset + PIECE_BYTES < file.size) next = file.slice(offset + PIECE_BYTES, offset + 2 * PIECE_BYTES).arrayBuffer();
      hash.update(piece);
    }
    postMessage({ type: 'sha256', sha256: hash.digest('hex') });
  } catch {
    postMessage({ type: 'sha256', sha256: '' }); // the page says nothing of a digest it does not have
  }
});
