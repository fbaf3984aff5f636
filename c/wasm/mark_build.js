// node c/wasm/mark_build.js FILE.wasm ID — run by build.sh on every wasm it builds: appends a custom section
// "mha-core-build" holding ID, the build's id, which build.sh also writes into the glue as coreBuild. Before it
// starts a core, web/src/load.js checks the two are the same: the glue calls the wasm's exports by minified
// names, so a wasm of another build (a stale cached file, an older release) would run the wrong functions.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A custom section: id 0, its size, its name, then `payload`; sizes as unsigned LEB128. */
export function customSection(name, payload = new Uint8Array()) {
  const leb = (n) => (n < 0x80 ? [n] : [(n & 0x7f) | 0x80, ...leb(n >>> 7)]);
  const nameBytes = Buffer.from(name);
  const body = Buffer.concat([Buffer.from(leb(nameBytes.length)), nameBytes, payload]);
  return Buffer.concat([Buffer.from([0, ...leb(body.length)]), body]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, id] = process.argv.slice(2);
  if (!file || !/^[0-9a-f]{16}$/.test(id ?? '')) {
    console.error('mark_build.js: usage: node c/wasm/mark_build.js FILE.wasm ID (16 hexadecimal digits)');
    process.exit(2);
  }
  writeFileSync(file, Buffer.concat([readFileSync(file), customSection('mha-core-build', Buffer.from(id))]));
}
