// Runs study A (study_a_wasm.cpp) in headless Chromium: in memory and through the
// IndexedDB backend. Writes the STUDY_A_JSON object, plus the browser's version, to OUT.
//
//   node bench/web/run_browser_bench.mjs BUILD_DIR OUT [iterations runs indexeddb_iterations]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromiumVersion, launch, serve } from '../../tests/web/browser.mjs';

const [buildDir, out, iterations = '10000', runs = '3', indexeddb = '200'] = process.argv.slice(2);
const port = 8766;
const server = await serve(path.resolve(buildDir), port, { isolated: true });
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'savekit-bench-'));
const context = await launch(profile);
try {
  const page = await context.newPage();
  const result = new Promise((resolve, reject) => {
    page.on('console', (m) => {
      if (m.text().startsWith('STUDY_A_JSON ')) resolve(JSON.parse(m.text().slice('STUDY_A_JSON '.length)));
    });
    page.on('pageerror', reject);
  });
  await page.goto(`http://127.0.0.1:${port}/bench/web/study_a.html?iterations=${iterations}&runs=${runs}&indexeddb=${indexeddb}`);
  const isolated = await page.evaluate(() => self.crossOriginIsolated);
  const data = await Promise.race([result, new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), 600000))]);
  data.environment = `${chromiumVersion()}, headless${isolated ? ', cross-origin isolated (5 µs timer)' : ''}`;
  fs.writeFileSync(out, JSON.stringify(data, null, 1));
  console.error(`study A in Chromium: ${out}`);
} finally {
  await context.close();
  server.closeAllConnections();
  server.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
process.exit(0);
