// The browser benchmark (issue 46): in Debian's Chromium, on a fresh profile, savekit's saves
// beside the same IndexedDB requests made directly by JavaScript in the same page, and the
// browser slots' open beside a plain getAll of the same records, each open in a page of its
// own (a fresh WebAssembly heap), floor and savekit taking turns. Writes OUT (JSON) for
// `bench/report.py browser-e2e`.
//
//   node bench/web/run_browser_e2e.mjs WASM_BUILD OUT [rounds opens slots generations bytes]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromiumVersion, closeBench, launch, serve } from '../../tests/web/browser.mjs';

const [wasmBuild, out, rounds = '40', opens = '3', slots = '50', generations = '3', bytes = '1048576'] =
  process.argv.slice(2);
const port = 8767;
for (const [name, value] of Object.entries({ rounds, opens, slots, generations, bytes }))
  if (!(Number(value) > 0)) throw new Error(`${name} must be a positive number, not ${value}`);

async function runPhase(context, query) {
  const page = await context.newPage();
  const lines = [];
  page.on('console', (m) => lines.push(m.text()));
  try {
    await page.goto(`http://127.0.0.1:${port}/bench/web/browser_e2e.html?${query}`);
    await page.waitForFunction(() => window.benchResult !== undefined || window.benchError !== undefined, null,
                               { timeout: 1800000, polling: 200 });
    const { result, error } = await page.evaluate(() => ({ result: window.benchResult, error: window.benchError }));
    if (error) throw new Error(`${query}: ${error}\n${lines.join('\n')}`);
    return result;
  } finally {
    await page.close();
  }
}

const server = await serve(path.resolve(wasmBuild), port, { isolated: true });
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'savekit-browser-e2e-'));
const context = await launch(profile, ['--enable-precise-memory-info']);
try {
  const result = { environment: `${chromiumVersion()}, headless`, rounds: Number(rounds) };
  console.error('browser e2e: saves');
  result.saves = await runPhase(context, `phase=saves&rounds=${rounds}`);
  console.error(`browser e2e: filling ${slots} slots x ${generations} generations of ${bytes} bytes`);
  result.fill = await runPhase(context, `phase=fill&slots=${slots}&generations=${generations}&bytes=${bytes}`);
  result.open_floor = [];
  result.open_savekit = [];
  for (let round = 0; round < Number(opens); ++round) {
    for (const which of round % 2 === 0 ? ['floor', 'savekit'] : ['savekit', 'floor']) {
      console.error(`browser e2e: open ${round + 1}/${opens}, ${which}`);
      result[`open_${which}`].push(
          await runPhase(context, `phase=open-${which}&generations=${generations}&bytes=${bytes}`));
    }
  }
  fs.writeFileSync(out, JSON.stringify(result, null, 1));
  console.error(`browser e2e: ${out}`);
} finally {
  await closeBench(context, server, profile);
}
process.exit(0);
