// Debian's Chromium driven through the DevTools protocol directly, without playwright:
// playwright emulates focus on every page it drives, so its pages never become hidden
// (no visibilitychange on a tab switch or a minimised window), and it disables the
// back/forward cache. These tests need both to behave as a player's browser does.
// (Node 20's WebSocket needs --experimental-websocket; run_browser_tests.mjs re-runs
// itself with it.)
import { spawn } from 'node:child_process';
import net from 'node:net';

const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
               '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A browser on profileDir; returns { page(targetId), pages(), newTab(url), close(), kill(), process }.
export async function launchRaw(chromiumPath, profileDir) {
  const port = await freePort();
  const child = spawn(chromiumPath, [...flags, `--user-data-dir=${profileDir}`, `--remote-debugging-port=${port}`,
                                     '--remote-debugging-address=127.0.0.1', 'about:blank'], { stdio: 'ignore' });
  let version = null;
  for (let i = 0; i < 100 && !version; ++i) {
    await sleep(100);
    version = await fetch(`http://127.0.0.1:${port}/json/version`).then((r) => r.json(), () => null);
  }
  if (!version) throw new Error('Chromium did not open its DevTools port');
  const socket = new WebSocket(version.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve);
    socket.addEventListener('error', reject);
  });
  let nextId = 0;
  const waiting = new Map();
  const listeners = [];
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(event.data);
    if (message.id && waiting.has(message.id)) {
      const { resolve, reject } = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.error) reject(new Error(`${message.error.message} (${message.error.code})`));
      else resolve(message.result);
    } else if (message.method) {
      for (const listener of listeners) listener(message);
    }
  });
  socket.addEventListener('close', () => {
    for (const { reject } of waiting.values()) reject(new Error('the browser went away'));
    waiting.clear();
  });
  const send = (method, params = {}, sessionId) => new Promise((resolve, reject) => {
    const id = ++nextId;
    waiting.set(id, { resolve, reject });
    socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
  });

  // A page: evaluate(expression), waitFor(expression), navigate(url).
  async function page(targetId) {
    const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
    await send('Page.enable', {}, sessionId);
    const evaluate = async (expression) => {
      const { result, exceptionDetails } = await send('Runtime.evaluate',
        { expression, returnByValue: true, awaitPromise: true }, sessionId);
      if (exceptionDetails) throw new Error(`${expression}: ${exceptionDetails.text} ${result && result.description || ''}`);
      return result.value;
    };
    return {
      targetId,
      evaluate,
      async waitFor(expression, timeout = 15000) {
        const until = Date.now() + timeout;
        for (;;) {
          const value = await evaluate(expression).catch(() => false);
          if (value) return value;
          if (Date.now() > until) throw new Error(`timed out waiting for ${expression}`);
          await sleep(50);
        }
      },
      async navigate(url) {
        const loaded = new Promise((resolve) => {
          const listener = (m) => {
            if (m.sessionId === sessionId && m.method === 'Page.loadEventFired') {
              listeners.splice(listeners.indexOf(listener), 1);
              resolve();
            }
          };
          listeners.push(listener);
        });
        await send('Page.navigate', { url }, sessionId);
        await loaded;
      },
      async reload() {
        const loaded = new Promise((resolve) => {
          const listener = (m) => {
            if (m.sessionId === sessionId && m.method === 'Page.loadEventFired') {
              listeners.splice(listeners.indexOf(listener), 1);
              resolve();
            }
          };
          listeners.push(listener);
        });
        await send('Page.reload', {}, sessionId);
        await loaded;
      },
      bringToFront() {
        return send('Target.activateTarget', { targetId });
      },
      async back() {
        const { currentIndex, entries } = await send('Page.getNavigationHistory', {}, sessionId);
        await send('Page.navigateToHistoryEntry', { entryId: entries[currentIndex - 1].id }, sessionId);
      },
    };
  }

  return {
    process: child,
    send,
    page,
    async pages() {
      const { targetInfos } = await send('Target.getTargets');
      return targetInfos.filter((t) => t.type === 'page');
    },
    // A new foreground tab: the tab that was in front becomes hidden, as when a player switches tabs.
    async newTab(url) {
      const { targetId } = await send('Target.createTarget', { url });
      return page(targetId);
    },
    // The player closes a tab (unload handlers run).
    closeTab(targetId) {
      return send('Target.closeTarget', { targetId });
    },
    // The player closes the browser window: Chromium ends gracefully, pages get pagehide.
    async close() {
      await send('Browser.close').catch(() => {});
      await exited(child, 10000);
    },
    // The power goes, or the browser crashes.
    async kill() {
      child.kill('SIGKILL');
      await exited(child, 10000);
    },
  };
}

function exited(child, timeout) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return Promise.race([new Promise((r) => child.once('exit', r)), sleep(timeout)]);
}
