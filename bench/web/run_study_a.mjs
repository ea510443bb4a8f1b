// Study A in memory natively, as WebAssembly under node and in headless Chromium, run in
// turn: ROUNDS rounds, each running the three builds of study_a_memory.hpp once (the order
// rotating from round to round), so that each round's three figures are taken minutes
// apart at most and a slow spell of a shared machine falls on all three, not on one. Then
// Chromium once more through the IndexedDB backend, a committed save after every save.
// Writes OUT_DIR/study_a_native.json, study_a_wasm_node.json and study_a_wasm_chromium.json:
// STUDY_A_JSON objects whose save_ns and load_ns hold one figure per round, in round order.
//
//   node bench/web/run_study_a.mjs NATIVE_BUILD WASM_BUILD OUT_DIR [iterations rounds indexeddb_iterations]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromiumVersion, closeBench, launch, serve } from '../../tests/web/browser.mjs';

const [nativeBuild, wasmBuild, outDir, iterations = '10000', rounds = '7', indexeddb = '200'] = process.argv.slice(2);
const port = 8766;

function parse(text, where) {
  const line = text.split('\n').find((l) => l.startsWith('STUDY_A_JSON '));
  if (!line) throw new Error(`${where}: no STUDY_A_JSON line`);
  return JSON.parse(line.slice('STUDY_A_JSON '.length));
}

function runProgram(command, args, where) {
  const run = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 24, timeout: 600000 });
  if (run.status !== 0) throw new Error(`${where} failed (${run.status}): ${run.stderr}`);
  return parse(run.stdout, where);
}

async function runPage(page, query) {
  const result = new Promise((resolve, reject) => {
    const onConsole = (m) => {
      if (!m.text().startsWith('STUDY_A_JSON ')) return;
      page.off('console', onConsole);
      resolve(JSON.parse(m.text().slice('STUDY_A_JSON '.length)));
    };
    page.on('console', onConsole);
    page.once('pageerror', reject);
  });
  await page.goto(`http://127.0.0.1:${port}/bench/web/study_a.html?${query}`);
  return Promise.race([result, new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), 600000))]);
}

const server = await serve(path.resolve(wasmBuild), port, { isolated: true });
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'savekit-bench-'));
const context = await launch(profile);
try {
  const page = await context.newPage();
  const environments = {
    native: () => runProgram(path.join(nativeBuild, 'bench/study_a_native'), ['--iterations', iterations, '--runs', '1'],
                             'native'),
    node: () => runProgram('node', ['--no-experimental-fetch', path.join(wasmBuild, 'bench/web/study_a_node.js'),
                                    '--iterations', iterations, '--runs', '1'], 'node'),
    chromium: () => runPage(page, `iterations=${iterations}&runs=1&indexeddb=0`),
  };
  const order = Object.keys(environments);
  const merged = {};
  for (let round = 0; round < Number(rounds); ++round) {
    for (let k = 0; k < order.length; ++k) {
      const name = order[(round + k) % order.length];
      const data = await environments[name]();
      const into = (merged[name] ??= { iterations: data.iterations, runs: 0, indexeddb_iterations: 0,
                                       interleaved_rounds: Number(rounds), memory: data.memory.map(
                                         (row) => ({ name: row.name, save_ns: [], load_ns: [] })) });
      for (const row of data.memory) {
        const same = into.memory.find((r) => r.name === row.name);
        if (!same) throw new Error(`${name}: way ${row.name} missing from its first round`);
        same.save_ns.push(...row.save_ns);
        same.load_ns.push(...row.load_ns);
      }
      into.runs += 1;
      console.error(`study A round ${round + 1}/${rounds}: ${name}`);
    }
  }
  if (Number(indexeddb) > 0) {
    const durable = await runPage(page, `iterations=20&runs=1&indexeddb=${indexeddb}`);
    merged.chromium.indexeddb_iterations = durable.indexeddb_iterations;
    merged.chromium.indexeddb = durable.indexeddb;
  }
  const isolated = await page.evaluate(() => self.crossOriginIsolated);
  merged.native.environment = 'native (study_a_native)';
  merged.node.environment = `node ${process.version}`;
  merged.chromium.environment = `${chromiumVersion()}, headless${isolated ? ', cross-origin isolated (5 µs timer)' : ''}`;
  fs.mkdirSync(outDir, { recursive: true });  // (a new directory: rounds of work lost otherwise)
  for (const [name, file] of [['native', 'study_a_native.json'], ['node', 'study_a_wasm_node.json'],
                              ['chromium', 'study_a_wasm_chromium.json']])
    fs.writeFileSync(path.join(outDir, file), JSON.stringify(merged[name], null, 1));
  console.error(`study A, ${rounds} rounds in turn: ${outDir}/study_a_{native,wasm_node,wasm_chromium}.json`);
} finally {
  await closeBench(context, server, profile);
}
process.exit(0);
