// The lesson's server (`npm start`) under hostile requests and bad settings: it answers, it never dies,
// and it serves only what the page and the widget need.
import test from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LIMITS, startServer, parsePort } from '../web/tools/serve.js';

const serveScript = fileURLToPath(new URL('../web/tools/serve.js', import.meta.url));
const webRoot = fileURLToPath(new URL('../web/', import.meta.url));
/** Whether build.sh web has made web/dist's bundles, or why the tests of them are skipped (npm test builds them first). */
const built = existsSync(join(webRoot, 'dist/page.js')) || 'run bash build.sh web first';

/** A raw request (fetch would normalise the path and refuse some headers). */
function request(url, { method = 'GET', path = '/', headers = {} } = {}) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, method, path, headers }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Runs `check(url)` against the server on a free port, closed afterwards whatever happens. */
async function withServer(check, limits) {
  const { server, url } = await startServer({ port: 0, limits });
  try {
    await check(url);
  } finally {
    server.close();
  }
}

/**
 * The server and its build step copied into a fresh folder holding `files` (name → content), as if that
 * folder were web/: for files the real web/ must not hold (a .env) and for building compressed copies.
 */
async function serverOver(files) {
  const root = mkdtempSync(join(tmpdir(), 'serve-test-'));
  mkdirSync(join(root, 'tools'));
  for (const script of ['serve.js', 'precompress.js']) copyFileSync(join(webRoot, 'tools', script), join(root, 'tools', script));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), content);
  }
  const { startServer: start } = await import(pathToFileURL(join(root, 'tools', 'serve.js')));
  const { server, url } = await start({ port: 0 });
  return {
    root,
    url,
    precompress: () => assert.equal(spawnSync(process.execPath, [join(root, 'tools', 'precompress.js')], { encoding: 'utf8' }).status, 0, 'precompress.js ran'),
    close() {
      server.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The type each kind of file must go out with (a browser refuses a module or wasm without its type). */
const EXPECTED_TYPES = {
  '.html': /^text\/html; charset=utf-8$/, '.css': /^text\/css; charset=utf-8$/, '.js': /^text\/javascript; charset=utf-8$/,
  '.mjs': /^text\/javascript; charset=utf-8$/, '.json': /^application\/json; charset=utf-8$/, '.wasm': /^application\/wasm$/,
  '.woff2': /^font\/woff2$/, '.woff': /^font\/woff$/, '.ttf': /^font\/ttf$/, '.safetensors': /^application\/octet-stream$/,
};

/** Every file of web/dist (but dotfiles, compressed copies and the core's build hash), by URL path. */
function distPaths() {
  return readdirSync(join(webRoot, 'dist'), { recursive: true })
    .filter((name) => statSync(join(webRoot, 'dist', name)).isFile() && !/(?:^|\/)\.|\.(?:gz|br|inputs)$/.test(name))
    .map((name) => `/dist/${name}`);
}

test('malformed and absurd byte ranges get the whole file, and the server keeps answering', () => withServer(async (url) => {
  const whole = await request(url, { path: '/index.html' });
  assert.equal(whole.status, 200);
  for (const range of ['bytes=5-2', 'bytes=0-18446744073709551615', 'bytes=-5', 'bytes=abc', 'bytes=0-0', 'bytes=99999999-', 'bytes=1-2,3-4']) {
    const res = await request(url, { path: '/index.html', headers: { Range: range } });
    assert.equal(res.status, 200, range);
    assert.equal(res.body.length, whole.body.length, `${range}: the whole file`);
  }
  assert.equal((await request(url, { path: '/' })).status, 200, 'still up');
}));

test('only what the page needs is served: no dotfiles, sources or build scripts', () => withServer(async (url) => {
  for (const path of ['/', '/index.html', '/course-example.html', '/page/style.css', '/dist/mha-core.wasm', '/src/attention.js',
    '/poems/poems.safetensors', '/poems/poems.card.json']) {
    assert.equal((await request(url, { path })).status, 200, path);
  }
  for (const path of ['/dist/.build-stamp', '/.git/config', '/serve.js', '/tools/serve.js', '/tools/bundle.js', '/bundle.js', '/page/main.js', '/widget/element.js',
    '/dist/%2e%2e/serve.js', '/dist/../serve.js', '/src/../serve.js', '/%2e%2e/package.json', '/src/attention.d.ts',
    '/poems/build/train.js', '/poems/head-roles.js', '/poems/build/corpus-summary.json', '/poems/build/corpus/train.bin', '/poems/section.js']) {
    assert.equal((await request(url, { path })).status, 404, path);
  }
  assert.equal((await request(url, { path: '/%E0%A4%A' })).status, 400, 'a malformed escape');
  assert.equal((await request(url, { path: '/index.html%00.css' })).status, 400, 'a NUL');
  const post = await request(url, { method: 'POST', path: '/index.html' });
  assert.equal(post.status, 405);
  assert.equal(post.headers.allow, 'GET, HEAD');
  assert.equal((await request(url, { method: 'HEAD', path: '/index.html' })).status, 200);
  assert.equal((await request(url, { path: '/' })).status, 200, 'still up');
}));

test('what build.sh web makes is served: the page’s bundle, the widget’s, KaTeX’s stylesheet', { skip: built !== true && built }, () => withServer(async (url) => {
  for (const path of ['/dist/page.js', '/dist/widget.js', '/dist/katex/katex.min.css']) assert.equal((await request(url, { path })).status, 200, path);
}));

test('the path checked is the path served: empty segments, dot segments and escapes cannot walk around the list', () => withServer(async (url) => {
  for (const path of ['//serve.js', '//bundle.js', '///serve.js', '/dist//../page/main.js', '/dist//../poems/build/train.js', '/dist//../poems/build/corpus.js',
    '/dist//../shared/explain.js', '/dist/%2e%2e/page/main.js', '/dist/%2E%2E/page/main.js', '/dist/.%2e/page/main.js', '/dist%2F..%2Fserve.js',
    '/%2Fserve.js', '/dist/..%2Fserve.js', '/dist/..%5Cserve.js', '/dist/..\\serve.js', '/dist\\..\\serve.js', '/dist/./page.js', '/./serve.js',
    '/src//attention.js', '/dist/page.js/', 'http://localhost//serve.js', '/index.html#/../serve.js']) {
    const res = await request(url, { path });
    assert.equal(res.status, 404, path);
    assert.doesNotMatch(res.body.toString(), /import|export|function/, `${path}: no source in the answer`);
  }
  assert.equal((await request(url, { path: 'http://localhost/index.html' })).status, 200, 'the absolute form HTTP/1.1 servers must accept');
  assert.equal((await request(url, { path: '/index.html?lang=en&x=//../serve.js' })).status, 200, 'a query is not part of the path');
}));

test('dotfiles and build folders stay out of reach through empty segments', async () => {
  const copy = await serverOver({ '.env': 'SECRET=1', 'index.html': '<!doctype html>', 'dist/page.js': 'export {};', 'poems/build/corpus/train.txt': '床前明月光' });
  try {
    for (const path of ['/.env', '//.env', '/dist//../.env', '/dist//../poems/build/corpus/train.txt', '/dist/%2e%2e/.env', '/dist/%2e%2e/poems/build/corpus/train.txt']) {
      const res = await request(copy.url, { path });
      assert.equal(res.status, 404, path);
      assert.doesNotMatch(res.body.toString(), /SECRET|床前/, path);
    }
    assert.equal((await request(copy.url, { path: '/dist/page.js' })).status, 200);
  } finally {
    copy.close();
  }
});

test('a path segment longer than a file name can be is not found, and a failing request is logged in a bounded line', async () => {
  const copy = await serverOver({ 'index.html': '<!doctype html>' });
  const logged = [];
  try {
    await withServer(async (url) => {
      for (const path of [`/dist/${'a'.repeat(256)}.js`, `/${'a'.repeat(300)}.html`, `/dist/${'b'.repeat(4000)}/x.js`]) {
        assert.equal((await request(url, { path })).status, 404, `a ${path.length}-character path`);
      }
    });
    // A file the server cannot stat (a symbolic link to itself) is a 500, logged with the target clipped.
    mkdirSync(join(copy.root, 'dist'), { recursive: true });
    symlinkSync('loop.js', join(copy.root, 'dist', 'loop.js'));
    const error = console.error;
    console.error = (line) => logged.push(line);
    let res;
    try {
      res = await request(copy.url, { path: `/dist/loop.js?s=${'a'.repeat(15000)}` });
    } finally {
      console.error = error;
    }
    assert.equal(res.status, 500);
    assert.equal(logged.length, 1);
    assert.ok(logged[0].length < 400, `a ${logged[0].length}-character log line`);
    assert.match(logged[0], /^serve: GET \/dist\/loop\.js\?s=a+… \(15016 characters\): .*ELOOP/);
    assert.equal((await request(copy.url, { path: '/index.html' })).status, 200, 'still up');
  } finally {
    copy.close();
  }
});

test('idle sockets are dropped within the limits, connections past the cap are refused, and the server keeps serving', async () => {
  // npm start's limits: a few seconds for a request's headers, checked every second, a cap far above a class.
  assert.ok(LIMITS.headersTimeout <= 10_000 && LIMITS.requestTimeout <= 30_000 && LIMITS.connectionsCheckingInterval <= 1_000, JSON.stringify(LIMITS));
  assert.ok(LIMITS.maxConnections >= 500 && LIMITS.maxConnections <= 2_000, JSON.stringify(LIMITS));
  const { server } = await startServer({ port: 0 });
  assert.deepEqual([server.headersTimeout, server.requestTimeout, server.keepAliveTimeout, server.maxConnections],
    [LIMITS.headersTimeout, LIMITS.requestTimeout, LIMITS.keepAliveTimeout, LIMITS.maxConnections]);
  server.close();
  // The same server with small limits, so a test can reach them with a few dozen loopback sockets.
  const cap = 20;
  await withServer(async (url) => {
    const { port } = new URL(url);
    const sockets = await Promise.all(Array.from({ length: cap + 10 }, () => new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
      socket.on('error', () => {}); // those past the cap are reset
      socket.once('error', reject);
    })));
    const closed = sockets.map((socket) => new Promise((resolve) => {
      let answer = '';
      socket.on('data', (chunk) => { answer += chunk; });
      socket.once('close', () => resolve({ answer }));
    }));
    // A slow sender: part of a request's headers, never the rest.
    sockets[0].write('GET / HTTP/1.1\r\nHost: x\r\n');
    const ends = await Promise.all(closed); // every socket closed by the server, none by the test
    const timedOut = ends.filter(({ answer }) => answer.startsWith('HTTP/1.1 408'));
    assert.ok(timedOut.length >= cap - 1 && timedOut.length <= cap, `${timedOut.length} of ${cap} accepted sockets told 408`);
    assert.equal(ends.filter(({ answer }) => answer === '').length, sockets.length - timedOut.length, 'the others refused at once');
    assert.equal((await request(url, { path: '/index.html' })).status, 200, 'still serving');
  }, { maxConnections: cap, headersTimeout: 300, requestTimeout: 600, connectionsCheckingInterval: 50 });
});

test('a request too long for the server gets a short page saying the link is too long, and the server keeps serving', () => withServer(async (url) => {
  for (const headers of [{}, { Cookie: `c=${'x'.repeat(20000)}` }]) {
    const res = await request(url, { path: `/?s=${'a'.repeat(headers.Cookie ? 10 : 20000)}`, headers });
    assert.equal(res.status, 431);
    assert.match(res.headers['content-type'], /^text\/html; charset=utf-8$/);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    const page = res.body.toString();
    assert.ok(page.length < 2000, `a short page, ${page.length} characters`);
    assert.match(page, /链接太长/);
    assert.match(page, /link is too long/);
    assert.match(page, /<a href="\/">/, 'a way to the page without the link\'s settings');
  }
  assert.equal((await request(url, { path: '/' })).status, 200, 'still up');
}));

test('every file served has its content type, nosniff and a validator; an unchanged file revalidates to 304', { skip: built !== true && built }, () => withServer(async (url) => {
  const paths = ['/', '/index.html', '/course-example.html', '/page/style.css', '/src/attention.js', '/poems/poems.safetensors', '/poems/poems.card.json', ...distPaths()];
  assert.ok(paths.includes('/dist/katex/fonts/KaTeX_Main-Regular.woff2') && paths.includes('/dist/mha-core-mt-fma.wasm'), 'the built files are there');
  for (const path of paths) {
    const res = await request(url, { path });
    assert.equal(res.status, 200, path);
    assert.match(res.headers['content-type'] ?? '', EXPECTED_TYPES[extname(path)] ?? EXPECTED_TYPES['.html'], path);
    assert.equal(res.headers['x-content-type-options'], 'nosniff', path);
    assert.equal(res.headers['cache-control'], 'no-cache', `${path}: a fixed name, so revalidated on every use`);
    const etag = res.headers.etag;
    assert.match(etag ?? '', /^"[^"]+"$/, `${path}: a strong ETag`);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await request(url, { path, headers: { 'If-None-Match': ifNoneMatch } });
      assert.equal(again.status, 304, `${path} with If-None-Match ${ifNoneMatch}`);
      assert.equal(again.body.length, 0);
      assert.equal(again.headers.etag, etag);
      assert.equal(again.headers['x-content-type-options'], 'nosniff');
    }
    assert.equal((await request(url, { path, headers: { 'If-None-Match': '"other"' } })).status, 200, `${path}: another version`);
  }
  for (const path of ['/serve.js', '/dist/mha-core.inputs', '/nothing.html']) {
    const res = await request(url, { path });
    assert.equal(res.status, 404, path);
    assert.equal(res.headers['x-content-type-options'], 'nosniff', path);
  }
  const head = await request(url, { method: 'HEAD', path: '/dist/page.js' });
  assert.equal(Number(head.headers['content-length']), statSync(join(webRoot, 'dist/page.js')).size);
  assert.equal(head.body.length, 0);
}));

test('compressed copies: built reproducibly, sent to whoever accepts them, never once their original has changed', async () => {
  const script = `export const lesson = ${JSON.stringify('多头注意力 multi-head attention '.repeat(400))};`;
  const copy = await serverOver({ 'index.html': '<!doctype html>', 'dist/page.js': script, 'dist/mha-core.wasm': Buffer.alloc(4096, 7),
    'dist/katex/fonts/a.woff2': Buffer.from([0x77, 0x4f, 0x46, 0x32]), 'poems/poems.safetensors': Buffer.alloc(8192, 1), 'poems/poems.card.json': '{}' });
  const get = (path, acceptEncoding) => request(copy.url, { path, headers: acceptEncoding === undefined ? {} : { 'Accept-Encoding': acceptEncoding } });
  try {
    copy.precompress();
    const built = Object.fromEntries(['dist/page.js.gz', 'dist/page.js.br', 'poems/poems.safetensors.br'].map((name) => [name, readFileSync(join(copy.root, name))]));
    for (const name of Object.keys(built)) rmSync(join(copy.root, name));
    copy.precompress();
    for (const [name, bytes] of Object.entries(built)) assert.deepEqual(readFileSync(join(copy.root, name)), bytes, `${name}: the same bytes on every build`);
    const gzipped = built['dist/page.js.gz'];
    assert.equal(gzipped.readUInt32LE(4), 0, 'no time in the gzip header');
    assert.equal(gzipped[3] & 0x08, 0, 'no file name in the gzip header');
    assert.equal(existsSync(join(copy.root, 'dist/katex/fonts/a.woff2.br')), false, 'no copy that is not smaller');

    for (const [path, original] of [['/dist/page.js', Buffer.from(script)], ['/dist/mha-core.wasm', Buffer.alloc(4096, 7)], ['/poems/poems.safetensors', Buffer.alloc(8192, 1)]]) {
      const plain = await get(path);
      assert.equal(plain.headers['content-encoding'], undefined, `${path}: none asked for`);
      assert.deepEqual(plain.body, original);
      for (const [accept, encoding, decompress] of [['gzip', 'gzip', zlib.gunzipSync], ['br', 'br', zlib.brotliDecompressSync],
        ['gzip, deflate, br, zstd', 'br', zlib.brotliDecompressSync], ['br;q=0, gzip', 'gzip', zlib.gunzipSync]]) {
        const res = await get(path, accept);
        assert.equal(res.headers['content-encoding'], encoding, `${path} with ${accept}`);
        assert.equal(res.headers.vary, 'Accept-Encoding');
        assert.ok(res.body.length < original.length, `${path} with ${accept}: smaller`);
        assert.deepEqual(decompress(res.body), original, `${path} with ${accept}: the file once decompressed`);
        assert.notEqual(res.headers.etag, plain.headers.etag, 'each encoding its own validator');
        assert.equal((await request(copy.url, { path, headers: { 'Accept-Encoding': accept, 'If-None-Match': res.headers.etag } })).status, 304);
      }
    }
    assert.equal((await get('/dist/katex/fonts/a.woff2', 'br')).headers['content-encoding'], undefined, 'a font as it is');
    assert.equal((await get('/dist/page.js.br', 'br')).status, 404, 'a copy is not a file of its own');

    // The page rebuilt a minute ago, its copies made two minutes ago.
    const rebuilt = script.replaceAll('多头', '重建');
    writeFileSync(join(copy.root, 'dist/page.js'), rebuilt);
    const minutesAgo = (minutes) => new Date(Date.now() - minutes * 60_000);
    utimesSync(join(copy.root, 'dist/page.js'), minutesAgo(1), minutesAgo(1));
    for (const suffix of ['.gz', '.br']) utimesSync(join(copy.root, `dist/page.js${suffix}`), minutesAgo(2), minutesAgo(2));
    const stale = await get('/dist/page.js', 'gzip, br');
    assert.equal(stale.headers['content-encoding'], undefined, 'an old copy is never sent');
    assert.equal(stale.body.toString(), rebuilt);
    copy.precompress();
    const fresh = await get('/dist/page.js', 'gzip, br');
    assert.equal(fresh.headers['content-encoding'], 'br', 'the next build makes new copies');
    assert.equal(zlib.brotliDecompressSync(fresh.body).toString(), rebuilt);
  } finally {
    copy.close();
  }
});

test('PORT must be a whole number from 1 to 65535', () => {
  assert.equal(parsePort(undefined), 8080);
  assert.equal(parsePort('3000'), 3000);
  for (const bad of ['', 'abc', '0', '65536', '-1', '80.5', '1e3', ' ']) {
    assert.throws(() => parsePort(bad), /PORT must be a whole number from 1 to 65535/, JSON.stringify(bad));
  }
  for (const bad of ['abc', '']) {
    const run = spawnSync(process.execPath, [serveScript], { encoding: 'utf8', env: { ...process.env, PORT: bad }, timeout: 10000 });
    assert.equal(run.status, 2, `PORT=${bad} exits non-zero`);
    assert.match(run.stderr, /PORT must be a whole number from 1 to 65535/);
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
  }
});

test('a port already in use is said plainly', () => withServer(async (url) => {
  const run = spawnSync(process.execPath, [serveScript], { encoding: 'utf8', env: { ...process.env, PORT: new URL(url).port }, timeout: 10000 });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /port \d+ is already in use/);
}));
