// fetchFile: a file the API loads from its URL (the wasm core, the poetry model), in browsers and in Node.
import { MHAError } from './checks.js';

/**
 * read(response) of the file at `address` (a URL; a relative one against the page): fetched, or in Node, for a
 * file: URL, read from disk into a Response (Node's fetch cannot read files). LOAD_FAILED, naming the URL, when
 * it cannot be had or read.
 */
export async function fetchFile(address, read) {
  let url;
  try {
    url = new URL(String(address), globalThis.location?.href);
    if (url.protocol === 'file:') {
      // getBuiltinModule is a call, not an import, so bundlers building for the browser see no Node built-in here.
      const { readFile } = globalThis.process.getBuiltinModule('node:fs/promises');
      return await read(new Response(await readFile(url)));
    }
    const response = await fetch(url);
    if (!response.ok) throw new Error(`it answered HTTP ${response.status}`);
    return await read(response);
  } catch (error) {
    throw new MHAError('LOAD_FAILED', `could not load ${url?.href ?? String(address)}: ${error?.message ?? error}`);
  }
}
