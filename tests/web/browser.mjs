// Shared by the browser tests and the browser benchmark: a static file server on a fixed
// 127.0.0.1 port (IndexedDB is per origin, so the origin must not change between launches)
// and Debian's Chromium driven by playwright-core on a profile folder of our choosing.
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

export const chromiumPath = process.env.SAVEKIT_CHROMIUM || '/usr/bin/chromium';

// Flags that work as root in a container with no network: no sandbox, no GPU, no calls home.
const flags = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
               '--disable-component-update', '--disable-sync'];

const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
                '.wasm': 'application/wasm', '.json': 'application/json' };

// Serves root's files at http://127.0.0.1:port/. isolated: cross-origin isolation headers,
// which give performance.now() its fine resolution (5 µs instead of 100 µs) for benchmarks.
// cacheable: no Cache-Control no-store, so that pages may enter the back/forward cache.
export function serve(root, port, { isolated = false, cacheable = false } = {}) {
  const isolation = isolated ? { 'Cross-Origin-Opener-Policy': 'same-origin',
                                 'Cross-Origin-Embedder-Policy': 'require-corp' } : {};
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, 'http://127.0.0.1');
    const file = path.join(root, path.normalize(decodeURIComponent(url.pathname)));
    if (!file.startsWith(path.resolve(root)) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      response.writeHead(404).end('not found');
      return;
    }
    response.writeHead(200, { 'Content-Type': types[path.extname(file)] || 'application/octet-stream',
                              ...(cacheable ? {} : { 'Cache-Control': 'no-store' }),
                              'Access-Control-Allow-Origin': '*',  // for the sandboxed (opaque-origin) frame
                              ...isolation });
    fs.createReadStream(file).pipe(response);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

// A browser on profileDir: two launches on one folder see the same IndexedDB.
export async function launch(profileDir, extraFlags = []) {
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: chromiumPath, headless: true, args: [...flags, ...extraFlags] });
  context.setDefaultTimeout(30000);
  return context;
}

// Ends what a benchmark started: the browser, the file server, the profile folder.
export async function closeBench(context, server, profileDir) {
  await context.close();
  server.closeAllConnections();
  server.close();
  fs.rmSync(profileDir, { recursive: true, force: true });
}

// Ends the browser the way a crash or a power cut would: SIGKILL, no unload, no flush.
export async function killBrowser(context, profileDir) {
  try {
    execFileSync('pkill', ['-KILL', '-f', '--', `--user-data-dir=${profileDir}`]);
  } catch { /* nothing left to kill */ }
  await Promise.race([context.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
}

// Ends the browser the way the operating system does at logout or shutdown: SIGTERM to
// every Chromium process of the profile. Pages get no event (no pagehide, no visibilitychange).
export async function quitBrowser(context, profileDir) {
  try {
    execFileSync('pkill', ['-TERM', '-f', '--', `--user-data-dir=${profileDir}`]);
  } catch { /* nothing left to end */ }
  await Promise.race([context.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
}

// Chromium's version string, for reports.
export function chromiumVersion() {
  try {
    return execFileSync(chromiumPath, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'chromium (version unknown)';
  }
}
