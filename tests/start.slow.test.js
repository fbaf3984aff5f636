// `npm start`, as the quick start gives it: its `prestart` builds what changed (build.sh wasm web --if-needed,
// a whole bundle on a fresh clone), then it serves the page, its core and the poetry model.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

test('npm start serves the page, its core and the poetry model, as the quick start says', async () => {
  const port = String(20000 + Math.floor(Math.random() * 20000));
  const server = spawn('npm', ['start'], { cwd: root, env: { ...process.env, PORT: port }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  try {
    let said = '';
    const address = await new Promise((resolve, reject) => {
      server.stdout.on('data', (chunk) => {
        said += chunk;
        const url = said.match(/http:\/\/[\w.:]+\//)?.[0];
        if (url) resolve(url);
      });
      server.on('exit', (code) => reject(new Error(`npm start stopped (${code}): ${said}`)));
    });
    for (const [path, type] of [['', 'text/html'], ['dist/page.js', 'text/javascript'], ['dist/mha-core.wasm', 'application/wasm'], ['poems/poems.card.json', 'application/json']]) {
      const response = await fetch(address + path);
      assert.equal(response.status, 200, `${path || '/'} answers 200`);
      assert.match(response.headers.get('content-type'), new RegExp(`^${type}`), `${path || '/'} is ${type}`);
    }
  } finally {
    process.kill(-server.pid);
  }
});
