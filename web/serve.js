// Static server for the lesson page: `npm start` (PORT from the environment, default 8080).
// Also used by the browser tests, which may pass extra response headers (for example a CSP).
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import sirv from 'sirv';

const webRoot = fileURLToPath(new URL('.', import.meta.url));

/** Serves web/ (the page, the widget and the built module). Resolves to { server, url }. */
export function startServer({ port = 8080, host = '127.0.0.1', headers = {} } = {}) {
  const serveStatic = sirv(webRoot, {
    dev: true,
    extensions: ['html'],
    setHeaders(res) {
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    },
  });
  const server = http.createServer((req, res) =>
    serveStatic(req, res, () => {
      res.statusCode = 404;
      res.end('not found');
    }),
  );
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      resolve({ server, url: `http://${host === '0.0.0.0' ? 'localhost' : host}:${actual}/` });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const port = Number(process.env.PORT ?? 8080);
  const { url } = await startServer({ port, host: process.env.HOST ?? '127.0.0.1' });
  console.log(`Lesson page: ${url}  (Ctrl+C to stop)`);
}
