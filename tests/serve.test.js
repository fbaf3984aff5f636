// The lesson's server (`npm start`) under hostile requests and bad settings: it answers, it never dies,
// and it serves only what the page and the widget need.
import test from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startServer, parsePort } from '../web/serve.js';

const serveScript = fileURLToPath(new URL('../web/serve.js', import.meta.url));

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

test('malformed and absurd byte ranges get the whole file, and the server keeps answering', async () => {
  const { server, url } = await startServer({ port: 0 });
  try {
    const whole = await request(url, { path: '/index.html' });
    assert.equal(whole.status, 200);
    for (const range of ['bytes=5-2', 'bytes=0-18446744073709551615', 'bytes=-5', 'bytes=abc', 'bytes=0-0', 'bytes=99999999-', 'bytes=1-2,3-4']) {
      const res = await request(url, { path: '/index.html', headers: { Range: range } });
      assert.equal(res.status, 200, range);
      assert.equal(res.body.length, whole.body.length, `${range}: the whole file`);
    }
    assert.equal((await request(url, { path: '/' })).status, 200, 'still up');
  } finally {
    server.close();
  }
});

test('only what the page needs is served: no dotfiles, sources or build scripts', async () => {
  const { server, url } = await startServer({ port: 0 });
  try {
    for (const path of ['/', '/index.html', '/course-example.html', '/page/style.css', '/dist/page.js', '/dist/widget.js', '/dist/mha-core.wasm', '/dist/katex/katex.min.css', '/src/attention.js',
      '/model/poems.safetensors', '/model/poems.card.json']) {
      assert.equal((await request(url, { path })).status, 200, path);
    }
    for (const path of ['/dist/.build-stamp', '/.git/config', '/serve.js', '/bundle.js', '/page/main.js', '/widget/element.js',
      '/dist/%2e%2e/serve.js', '/dist/../serve.js', '/src/../serve.js', '/%2e%2e/package.json', '/src/attention.d.ts',
      '/model/train.js', '/model/head-roles.js', '/model/corpus-summary.json', '/model/build/train.bin']) {
      assert.equal((await request(url, { path })).status, 404, path);
    }
    assert.equal((await request(url, { path: '/%E0%A4%A' })).status, 400, 'a malformed escape');
    assert.equal((await request(url, { path: '/index.html%00.css' })).status, 400, 'a NUL');
    const post = await request(url, { method: 'POST', path: '/index.html' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.allow, 'GET, HEAD');
    assert.equal((await request(url, { method: 'HEAD', path: '/index.html' })).status, 200);
    assert.equal((await request(url, { path: '/' })).status, 200, 'still up');
  } finally {
    server.close();
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

test('a port already in use is said plainly', async () => {
  const { server, url } = await startServer({ port: 0 });
  try {
    const run = spawnSync(process.execPath, [serveScript], { encoding: 'utf8', env: { ...process.env, PORT: new URL(url).port }, timeout: 10000 });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /port \d+ is already in use/);
  } finally {
    server.close();
  }
});
