// savekit's real-browser tests: Debian's Chromium, driven by playwright-core.
//
//   node tests/web/run_browser_tests.mjs BUILD_DIR [PORT]
//
// BUILD_DIR is an em++ build tree (scripts/test.sh wasm makes build/wasm); it holds the
// demo game (examples/web) and the C++ test page of the IndexedDB backend (tests/web).
// Every test starts from a fresh browser profile; where a test closes or kills the browser
// and launches it again, it does so on the same profile, as a player would.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromiumVersion, killBrowser, launch, serve } from './browser.mjs';

const buildDir = path.resolve(process.argv[2] || 'build/wasm');
const port = Number(process.argv[3] || 8765);
const origin = `http://127.0.0.1:${port}`;
const demoUrl = `${origin}/examples/web/index.html`;

const profiles = [];
function freshProfile() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'savekit-chromium-'));
  profiles.push(dir);
  return dir;
}

async function openDemo(context, query = '') {
  const page = context.pages()[0] || (await context.newPage());
  await page.goto(demoUrl + query);
  await page.waitForFunction(() => window.game && window.game.ready);
  return page;
}
const stateOf = (page) => page.evaluate(() => ({ ...window.game.state }));
const messageOf = (page) => page.evaluate(() => window.game.message);

async function play(page, gains) {
  for (let i = 0; i < gains; ++i) await page.click('#gain');
  await page.click('#hit');
}
async function saveAndWait(page) {
  await page.evaluate(() => window.game.save());  // resolves when the transaction has completed
  assert.equal(await messageOf(page), 'saved');
}

const tests = {
  // The C++ suite of the IndexedDB backend (tests/web/idb_tests.cpp), in the page.
  async 'IndexedDB backend suite (C++, in the page)'() {
    const profile = freshProfile();
    const context = await launch(profile);
    try {
      const page = await context.newPage();
      const lines = [];
      page.on('console', (m) => lines.push(m.text()));
      await page.goto(`${origin}/tests/web/idb_tests.html`);
      try {
        await page.waitForFunction(() => window.testsDone === true, null, { timeout: 60000 });
      } finally {
        console.log(lines.map((l) => '    ' + l).join('\n'));
      }
      const result = await page.evaluate(() => ({ failed: window.testsFailed, passed: window.testsPassed }));
      assert.equal(result.failed, 0, `${result.failed} C++ checks failed`);
      assert.ok(result.passed > 0, 'no C++ test ran');
    } finally {
      await context.close();
    }
  },

  // A real QuotaExceededError: the origin's quota lowered through the DevTools protocol
  // (Chromium applies it to connections opened after the override).
  async 'quota exceeded: the save fails with storage_full and the committed state survives'() {
    const profile = freshProfile();
    let context = await launch(profile);
    let page = await openDemo(context);
    await play(page, 3);
    await saveAndWait(page);
    const saved = await stateOf(page);
    await context.close();

    context = await launch(profile);
    page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 1 });
    page = await openDemo(context);
    assert.deepEqual(await stateOf(page), saved);
    await page.evaluate(() => window.game.gainExp(1));
    const outcome = await page.evaluate(() => window.game.save().then(() => 'saved', (e) => e.message));
    assert.match(outcome, /^storage_full: QuotaExceededError/);
    assert.match(await messageOf(page), /save failed/);
    assert.equal(await page.evaluate(() => window.game.pending), true, 'the failed changes stay pending');
    await cdp.send('Storage.overrideQuotaForOrigin', { origin });  // back to normal
    await context.close();

    context = await launch(profile);
    page = await openDemo(context);
    assert.deepEqual(await stateOf(page), saved);
    await context.close();
  },

  async 'play, save, close the browser; launch again: the loaded state is what was saved'() {
    const profile = freshProfile();
    let context = await launch(profile);
    let page = await openDemo(context);
    assert.equal(await messageOf(page), 'new game');
    assert.deepEqual(await stateOf(page), { level: 1, exp: 0, hp: 10, max_hp: 10 });
    await play(page, 7);  // 28 exp: level 2 at 10 (max HP 15, healed), 18 of the 20 for level 3; a hit of 3
    await saveAndWait(page);
    const saved = await stateOf(page);
    assert.deepEqual(saved, { level: 2, exp: 18, hp: 12, max_hp: 15 });
    await context.close();

    context = await launch(profile);
    page = await openDemo(context);
    assert.equal(await messageOf(page), 'loaded');
    assert.deepEqual(await stateOf(page), saved);
    await context.close();
  },

  async 'a save survives the browser being killed right after it completes'() {
    const profile = freshProfile();
    let context = await launch(profile);
    let page = await openDemo(context);
    await play(page, 5);
    await saveAndWait(page);
    const saved = await stateOf(page);
    await killBrowser(context, profile);

    context = await launch(profile);
    page = await openDemo(context);
    assert.deepEqual(await stateOf(page), saved);
    await context.close();
  },

  async 'a reload without saving loses only the unsaved changes'() {
    const profile = freshProfile();
    const context = await launch(profile);
    let page = await openDemo(context, '?autosave=0');
    await play(page, 4);
    await saveAndWait(page);
    const saved = await stateOf(page);
    await play(page, 6);  // unsaved
    assert.notDeepEqual(await stateOf(page), saved);
    assert.equal(await page.evaluate(() => window.game.pending), true);
    page = await openDemo(context, '?autosave=0');  // a reload
    assert.deepEqual(await stateOf(page), saved);
    await context.close();
  },

  async 'leaving the page (pagehide) with pending changes keeps them'() {
    const profile = freshProfile();
    const context = await launch(profile);
    let page = await openDemo(context);
    await play(page, 4);
    await saveAndWait(page);
    await play(page, 3);  // pending when the player leaves
    const unsaved = await stateOf(page);
    await page.goto('about:blank');
    page = await openDemo(context);
    assert.deepEqual(await stateOf(page), unsaved);
    await context.close();
  },

  async 'a page hidden (visibilitychange) with pending changes commits them before the browser dies'() {
    const profile = freshProfile();
    let context = await launch(profile);
    let page = await openDemo(context);
    await play(page, 2);
    const unsaved = await stateOf(page);
    // What the browser does when the player switches tabs or apps.
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await page.waitForFunction(() => window.game.message === 'saved (page hidden)');
    await killBrowser(context, profile);

    context = await launch(profile);
    page = await openDemo(context);
    assert.deepEqual(await stateOf(page), unsaved);
    await context.close();
  },

  async 'no IndexedDB (an opaque-origin frame) is reported, not silently memory-only'() {
    const profile = freshProfile();
    const context = await launch(profile);
    const page = await context.newPage();
    await page.goto(`${origin}/tests/web/sandboxed.html`);
    const frame = page.frame({ url: /examples\/web\/index.html/ });
    assert.ok(frame, 'the demo frame loaded');
    await frame.waitForFunction(() => window.game && window.game.ready);
    const report = await frame.evaluate(() => ({ message: window.game.message, storage: window.game.storage }));
    assert.match(report.message, /progress will NOT be kept: storage_unavailable/);
    assert.equal(report.storage, 'unavailable');
    await context.close();
  },

  async 'a second tab on the same store gets errc::locked'() {
    const profile = freshProfile();
    const context = await launch(profile);
    await openDemo(context);
    const second = await context.newPage();
    await second.goto(demoUrl);
    await second.waitForFunction(() => window.game && window.game.ready);
    assert.match(await second.evaluate(() => window.game.message), /progress will NOT be kept: locked/);
    await context.close();
  },
};

const only = process.env.SAVEKIT_BROWSER_TEST;  // a substring of a test name, to run one
console.log(`browser tests: ${chromiumVersion()}, ${origin}, build ${buildDir}`);
const server = await serve(buildDir, port);
let failed = 0;
for (const [name, test] of Object.entries(tests)) {
  if (only && !name.includes(only)) continue;
  const started = Date.now();
  try {
    await test();
    console.log(`PASS ${name} (${Date.now() - started} ms)`);
  } catch (e) {
    ++failed;
    console.log(`FAIL ${name}\n  ${String(e && e.stack || e).replace(/\n/g, '\n  ')}`);
  }
}
server.close();
for (const dir of profiles) fs.rmSync(dir, { recursive: true, force: true });
console.log(failed ? `${failed} browser test(s) failed` : 'all browser tests passed');
process.exit(failed ? 1 : 0);
