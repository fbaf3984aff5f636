// Static server for the lesson page: `npm start` (PORT and HOST from the environment, default 127.0.0.1:8080).
// Also used by the browser tests, which may pass extra response headers (for example a CSP).
// Every request is hostile until proven otherwise: only the files the page and the widget need are
// served, byte ranges are not (sirv mishandles malformed ones), and no request can stop the process.
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';

const webRoot = fileURLToPath(new URL('.', import.meta.url));

/**
 * What may be served: the pages at the top, the page's stylesheet, the built bundles and module, the
 * API's source module (a browser can import it without a bundler), and the poetry model with its card,
 * fetched where loadPoemModel looks for them (web/model/ beside web/src/). No dotfiles anywhere.
 */
const SERVED = [/^\/$/, /^\/[\w-]+\.html$/, /^\/page\/[\w-]+\.css$/, /^\/dist\/(?:[\w-]+\/)*[\w.-]+$/, /^\/src\/[\w-]+\.js$/,
  /^\/model\/poems\.(?:safetensors|card\.json)$/];

export function isServed(pathname) {
  return !pathname.split('/').some((part) => part.startsWith('.')) && SERVED.some((pattern) => pattern.test(pathname));
}

/** The request's path, decoded, or null when it cannot be (a malformed escape, a NUL). */
function requestPath(url) {
  try {
    const pathname = decodeURIComponent(new URL(url ?? '/', 'http://localhost').pathname);
    return pathname.includes('\0') ? null : pathname;
  } catch {
    return null;
  }
}

function answer(res, status, text) {
  if (res.headersSent) return res.destroy();
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}

/**
 * Cross-origin isolation: with these the page has SharedArrayBuffer, so the core runs on every core
 * (web/src/attention.js loads the threaded build). Everything the page loads is its own, so nothing breaks.
 */
export const ISOLATION_HEADERS = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

/**
 * Serves web/ (the page, the widget and the built module). Resolves to { server, url }. `isolated: false`
 * leaves out the isolation headers, as a course page that cannot set them would (the tests of the
 * single-threaded path use it).
 */
export function startServer({ port = 8080, host = '127.0.0.1', headers = {}, isolated = true } = {}) {
  const sent = { ...(isolated && ISOLATION_HEADERS), ...headers };
  const serveStatic = sirv(webRoot, {
    dev: true,
    extensions: ['html'],
    setHeaders(res) {
      for (const [name, value] of Object.entries(sent)) res.setHeader(name, value);
    },
  });
  const server = http.createServer((req, res) => {
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('Allow', 'GET, HEAD');
        return answer(res, 405, 'method not allowed');
      }
      const pathname = requestPath(req.url);
      if (pathname === null) return answer(res, 400, 'bad request');
      if (!isServed(pathname)) return answer(res, 404, 'not found');
      delete req.headers.range; // a whole file is always a valid answer to a range request
      serveStatic(req, res, () => answer(res, 404, 'not found'));
    } catch (error) {
      console.error(`serve: ${req.method} ${req.url}: ${error.message}`);
      answer(res, 500, 'internal error');
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      resolve({ server, url: `http://${host === '0.0.0.0' ? 'localhost' : host}:${actual}/` });
    });
  });
}

/** PORT from the environment: unset means 8080; anything but a whole number from 1 to 65535 is an error. */
export function parsePort(text) {
  if (text === undefined) return 8080;
  const port = /^\d{1,5}$/.test(text.trim()) ? Number(text) : NaN;
  if (!(port >= 1 && port <= 65535)) throw new Error(`PORT must be a whole number from 1 to 65535, got ${JSON.stringify(text)}`);
  return port;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const { url } = await startServer({ port: parsePort(process.env.PORT), host: process.env.HOST || '127.0.0.1' });
    console.log(`Lesson page: ${url}  (Ctrl+C to stop)`);
  } catch (error) {
    console.error(`npm start: ${error.code === 'EADDRINUSE' ? `port ${error.port} is already in use; try PORT=8081 npm start` : error.message}`);
    process.exit(2);
  }
}
