// Static server for the lesson page: `npm start` (PORT and HOST from the environment, default 127.0.0.1:8080).
// Also used by the browser tests, which may pass extra response headers (for example a CSP).
// Every request is hostile until proven otherwise: only the files the page and the widget need are
// served, and the path checked is the very path served (no URL parser rewrites it in between); byte
// ranges are not served, and no request can stop the process.
// For a classroom: compressed copies made at build time (web/tools/precompress.js), validators so a second
// visit costs a 304, and a type on every file.
import http from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { pipeline } from 'node:stream';
import { fileURLToPath } from 'node:url';

// web/, the folder above this one (a path, not a URL: these tools read the whole folder, they import none of it).
const webRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '/');

/**
 * What may be served: the pages at the top, the page's stylesheet, the built bundles and module, the
 * API's source module (a browser can import it without a bundler), and the poetry model with its card,
 * fetched where loadPoemModel looks for them (web/poems/ beside web/src/). No dotfiles anywhere, and no
 * empty segment (each pattern's segments hold at least one character).
 */
const SERVED = [/^\/$/, /^\/[\w-]+\.html$/, /^\/page\/[\w-]+\.css$/, /^\/dist\/(?:[\w-]+\/)*[\w.-]+$/, /^\/src\/[\w-]+\.js$/,
  /^\/poems\/poems\.(?:safetensors|card\.json)$/];

export function isServed(pathname) {
  return !pathname.split('/').some((part) => part.startsWith('.')) && SERVED.some((pattern) => pattern.test(pathname));
}

/** The type of each kind of file served (contentType); a file of any other kind is not served. */
const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.safetensors': 'application/octet-stream',
};

export function contentType(file) {
  return CONTENT_TYPES[extname(file)];
}

/** The encodings sent, best first, each from a copy beside the file with this suffix (web/tools/precompress.js makes them). */
export const ENCODINGS = [{ name: 'br', suffix: '.br' }, { name: 'gzip', suffix: '.gz' }];

/**
 * A compressed copy stands for its original only when written after it: an original rebuilt or checked out
 * since (a new wasm core, a retrained model) goes out as it is until the next build, never as its old copy.
 */
export function isFresh(original, copy) {
  return copy !== null && copy.mtimeMs > original.mtimeMs;
}

/** The file's stats, or null when there is no such file. */
export function statOrNull(path) {
  try {
    return statSync(path);
  } catch (error) {
    // A segment over the file system's 255 bytes names no file either.
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR' || error.code === 'ENAMETOOLONG') return null;
    throw error;
  }
}

/** A request target as logged: a 16 KB one would make every failing request a 16 KB line. */
const LOGGED_TARGET = 200;
const clipped = (target) => (target.length > LOGGED_TARGET ? `${target.slice(0, LOGGED_TARGET)}… (${target.length} characters)` : target);

/** `GET http://host/path`: the absolute form, which an HTTP/1.1 server must accept. */
const ABSOLUTE_FORM = /^https?:\/\/[^/?]*/i;

/**
 * The path to check and then serve: the request target's path without its query, decoded once, or null
 * when it cannot be read (a malformed escape, a NUL, not a path). It is not resolved: `//x` and
 * `/dist//../x` stay as they are and fail the allowlist.
 */
function requestPath(target = '/') {
  const path = target.replace(ABSOLUTE_FORM, '').split('?', 1)[0] || '/';
  try {
    const decoded = decodeURIComponent(path);
    return decoded.startsWith('/') && !decoded.includes('\0') ? decoded : null;
  } catch {
    return null;
  }
}

/** The encodings the request accepts, by name (Accept-Encoding; `;q=0` refuses one). */
function acceptedEncodings(header = '') {
  const accepted = new Set();
  for (const entry of header.toLowerCase().split(',')) {
    const [name, ...params] = entry.split(';').map((part) => part.trim());
    const weight = params.find((param) => param.startsWith('q='));
    if (!weight || Number(weight.slice(2)) > 0) accepted.add(name);
  }
  return accepted;
}

/** Whether If-None-Match names this ETag (weak comparison, as RFC 9110 asks of If-None-Match). */
function matchesETag(header, etag) {
  return header !== undefined && header.split(',').some((tag) => ['*', etag].includes(tag.trim().replace(/^W\//, '')));
}

function answer(res, status, text) {
  if (res.headersSent) return res.destroy();
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}

/**
 * Sends the file at the checked `pathname`: its freshest compressed copy the request accepts, or the file
 * itself. Every name is fixed (no content hashes), so `no-cache`: the browser keeps the file but asks each
 * time, a rebuilt page is seen at once, and an unchanged file costs a 304.
 */
function sendFile(req, res, pathname) {
  const file = join(webRoot, pathname === '/' ? 'index.html' : pathname);
  const type = contentType(file);
  const original = type && statOrNull(file);
  if (!original?.isFile()) return answer(res, 404, 'not found');
  const accepted = acceptedEncodings(req.headers['accept-encoding']);
  const copy = ENCODINGS.filter(({ name }) => accepted.has(name))
    .map(({ name, suffix }) => ({ encoding: name, path: file + suffix, stats: statOrNull(file + suffix) }))
    .find(({ stats }) => isFresh(original, stats));
  const { encoding, path, stats } = copy ?? { path: file, stats: original };
  res.setHeader('ETag', `"${stats.size.toString(36)}-${Math.round(stats.mtimeMs * 1000).toString(36)}${encoding ? `-${encoding}` : ''}"`);
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('Vary', 'Accept-Encoding');
  if (matchesETag(req.headers['if-none-match'], res.getHeader('ETag'))) return res.writeHead(304).end();
  res.writeHead(200, { 'Content-Type': type, 'Content-Length': stats.size, ...(encoding && { 'Content-Encoding': encoding }) });
  if (req.method === 'HEAD' || stats.size === 0) return res.end();
  // At most the bytes announced, even if the file grows meanwhile; a client gone mid-file is no error of ours.
  pipeline(createReadStream(path, { end: stats.size - 1 }), res, () => {});
}

/**
 * What a request longer than Node's header limit gets (a share link carrying too many settings): a short
 * page in both languages, instead of a bare 431 the browser shows as a broken connection.
 */
const TOO_LONG_PAGE = `<!doctype html>
<html lang="zh-CN">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>链接太长 · Link too long</title></head>
<body>
<h1>链接太长了</h1>
<p>这个地址超过了服务器能读的 ${http.maxHeaderSize / 1024} KB,多半是分享链接里带的设置太多。请返回上一页,或者<a href="/">打开不带设置的课程页面</a>。</p>
<h1 lang="en">This link is too long</h1>
<p lang="en">The address is longer than the ${http.maxHeaderSize / 1024} KB the server reads, most likely a share link carrying too many settings. Go back, or <a href="/">open the lesson without the link's settings</a>.</p>
</body>
</html>
`;

/** Node's own answers to a request it cannot parse, but for the header overflow, which gets the page above. */
const CLIENT_ERROR_STATUS = { HPE_HEADER_OVERFLOW: 431, HPE_CHUNK_EXTENSIONS_OVERFLOW: 413, ERR_HTTP_REQUEST_TIMEOUT: 408 };

/** How long a socket answered with an error may stay open for the client to read the answer and close. */
const CLOSE_AFTER_ERROR_MS = 10_000;

function answerClientError(error, socket) {
  // Node calls again for each later chunk of the same request: the answer is out, the rest is read and dropped.
  if (!socket.writable) return;
  const status = CLIENT_ERROR_STATUS[error.code] ?? 400;
  const [type, body] = status === 431 ? ['text/html', TOO_LONG_PAGE] : ['text/plain', http.STATUS_CODES[status]];
  // A client too slow to send its request has nothing left unread: it goes once told, holding no descriptor.
  if (status === 408) socket.once('finish', () => socket.destroy());
  else socket.setTimeout(CLOSE_AFTER_ERROR_MS, () => socket.destroy());
  // Closed only once the client has sent all and read this: closing with its bytes unread would reset the connection.
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: ${type}; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`);
}

/**
 * Cross-origin isolation: with these the page has SharedArrayBuffer, so the core runs on every core
 * (web/src/load.js loads the threaded build). Everything the page loads is its own, so nothing breaks.
 */
export const ISOLATION_HEADERS = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

/**
 * For a classroom on one machine: a class of 60 browsers opens a few hundred connections, so past 1,000
 * something is hoarding them, and a socket that has not sent its request's headers within 10 s (the whole
 * request within 30 s) is dropped, checked every second: Node's defaults (60 s, checked every 30 s) let
 * about 20,000 idle sockets use up the process's file descriptors. Times in ms.
 */
export const LIMITS = { maxConnections: 1000, headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000, connectionsCheckingInterval: 1_000 };

/**
 * Serves web/ (the page, the widget and the built module). Resolves to { server, url }. `isolated: false`
 * leaves out the isolation headers, as a course page that cannot set them would (the tests of the
 * single-threaded path use it); `limits` replaces some of LIMITS (the tests use smaller ones).
 */
export function startServer({ port = 8080, host = '127.0.0.1', headers = {}, isolated = true, limits = {} } = {}) {
  const sent = { 'X-Content-Type-Options': 'nosniff', ...(isolated && ISOLATION_HEADERS), ...headers };
  const { maxConnections, keepAliveTimeout, ...timeouts } = { ...LIMITS, ...limits };
  const server = http.createServer(timeouts, (req, res) => {
    try {
      for (const [name, value] of Object.entries(sent)) res.setHeader(name, value);
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('Allow', 'GET, HEAD');
        return answer(res, 405, 'method not allowed');
      }
      const pathname = requestPath(req.url);
      if (pathname === null) return answer(res, 400, 'bad request');
      if (!isServed(pathname)) return answer(res, 404, 'not found');
      sendFile(req, res, pathname); // a Range header is ignored: a whole file is always a valid answer
    } catch (error) {
      console.error(`serve: ${req.method} ${clipped(req.url)}: ${error.message}`);
      answer(res, 500, 'internal error');
    }
  });
  server.on('clientError', answerClientError);
  Object.assign(server, { maxConnections, keepAliveTimeout });
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
