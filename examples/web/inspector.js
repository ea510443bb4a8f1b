// The save inspector page (inspector.html): the files a person opens go into the engine's
// in-memory file system (inspector.cpp) and are read there by the same code as `savekit
// show/diff/edit`; this script only draws and asks. It makes no request of its own.
'use strict';

var Module = {
  onRuntimeInitialized: function () { window.inspector.ready = true; window.inspector.say('Ready. Open a save to look inside it.'); },
  print: function (text) { console.log(text); },
  printErr: function (text) { console.warn(text); },
};

// Everything else in a scope of its own: the engine's glue defines globals (run, among others).
(() => {
window.inspector = { ready: false, opened: null, nodes: 0, lastSave: null };

const $ = (id) => document.getElementById(id);
let folders = 0;          // /in/N for each batch of files opened
let idbSource = null;     // {kind: 'store'|'slots', name}: what the open copy was taken from, in IndexedDB
let keyFile = '';         // the key file's path in the engine's memory, or ''
let current = null;       // {path, key, generation}: what document 0 is
let selected = null;      // the selected tree item
const items = new Map();  // node id -> its tree item (ids change after an edit: rebuilt then)
const pageSize = 200;     // children drawn at a time

function say(text, isError) {
  const status = $('status');
  status.textContent = text;
  status.className = isError ? 'error' : '';
  status.setAttribute('role', isError ? 'alert' : 'status');
}

// A call into the engine: its JSON answer, or an Error with the engine's message.
function engine(name, types, args) {
  const text = Module.ccall(name, 'string', types, args);
  const answer = JSON.parse(text);
  if (answer && answer.error) {
    const e = new Error(answer.error.message);
    e.code = answer.error.code;
    e.offset = answer.error.offset;
    throw e;
  }
  return answer;
}

// ---- files into the engine ------------------------------------------------------------------

async function putFiles(fileList) {
  const files = Array.from(fileList);
  if (files.length === 0) throw new Error('no file was chosen');
  const base = `/in/${++folders}`;
  Module.FS.mkdirTree(base);
  const relative = files.map((f) => f.webkitRelativePath || f.name);
  const fromFolder = relative.some((r) => r.includes('/'));
  const slotFiles = files.length > 1 && relative.some((r) => r.endsWith('.slot'));
  const into = fromFolder || !slotFiles ? base : `${base}/slots`;
  for (let i = 0; i < files.length; ++i) {
    const target = `${into}/${relative[i]}`;
    Module.FS.mkdirTree(target.substring(0, target.lastIndexOf('/')));
    Module.FS.writeFile(target, new Uint8Array(await files[i].arrayBuffer()));
  }
  let root = into;
  if (fromFolder) root = `${base}/${relative[0].split('/')[0]}`;
  else if (!slotFiles) root = `${base}/${relative[0]}`;
  // A slots folder chosen as files may come without its lock file (a hidden file): the
  // engine opens it read-only all the same.
  if (fromFolder || slotFiles) {
    const lock = `${root}/.savekit-slots.lock`;
    if (!Module.FS.analyzePath(lock).exists) Module.FS.writeFile(lock, new Uint8Array(0));
  }
  return root;
}

// ---- the game's own saves, in IndexedDB (inspector.cpp copies a snapshot) ----------------------

let idbPending = null;
Module.inspectorIdbDone = (text) => { const done = idbPending; idbPending = null; if (done) done(text); };
function idbCall(name, types, args) {
  return new Promise((resolve, reject) => {
    if (idbPending) return reject(new Error("still busy with the game's saves: try again in a moment"));
    idbPending = (text) => {
      const answer = JSON.parse(text);
      if (answer && answer.error) reject(Object.assign(new Error(answer.error.message), answer.error));
      else resolve(answer);
    };
    Module.ccall(name, null, types, args);
  });
}

async function findGameSaves() {
  if (!indexedDB.databases) throw new Error('this browser cannot list its databases: open the saves as files instead');
  const list = $('idb');
  clear(list);
  const found = (await indexedDB.databases()).map((d) => d.name).filter((n) => /^savekit(-slots)?:/.test(n)).sort();
  for (const database of found) {
    const kind = database.startsWith('savekit-slots:') ? 'slots' : 'store';
    const name = database.substring(database.indexOf(':') + 1);
    list.append(entryButton(name, kind === 'store' ? 'the game\'s store' : 'the game\'s slots', () => openGameSaves(kind, name)));
  }
  say(found.length ? `${found.length} of the game's save databases here. Choose one: a snapshot is opened, and the game plays on.` :
    'No savekit saves in this site\'s storage: the page must be served from the game\'s own address.');
  return found;
}

async function openGameSaves(kind, name, key) {
  const folder = `/idb/${++folders}`;
  const copy = await idbCall(kind === 'store' ? 'inspector_copy_idb_store' : 'inspector_copy_idb_slots',
    ['string', 'string'], [name, folder]);
  describeAndShow(copy.path);
  idbSource = { kind, name };
  if (key) openValue(copy.path, key, -1);
  $('saveidb').hidden = false;
}

async function saveIntoGame() {
  if (!idbSource || !current) throw new Error("open one of the game's saves first");
  const { kind, name } = idbSource;
  const key = current.key;
  const saved = await idbCall('inspector_save_idb', ['number', 'string', 'string'], [0, kind, name]);
  await openGameSaves(kind, name, key);  // the new snapshot, with the edit in it
  say(`Saved as ${saved.what}. The game reads it the next time it opens its saves.`);
}

// ---- what a path holds ----------------------------------------------------------------------

function clear(element) { while (element.firstChild) element.firstChild.remove(); }

function describeAndShow(path) {
  const d = engine('inspector_describe', ['string'], [path]);
  const listing = $('listing');
  clear(listing);
  clear($('recovery'));
  current = null;
  if (d.kind === 'value') return openValue(path, '', -1);
  if (d.kind === 'store') {
    if (d.recovery.recovered) {
      const p = document.createElement('p');
      p.className = 'damaged';
      p.textContent = `This store was damaged: ${d.recovery.detail}. ${d.recovery.bytes_discarded} bytes after the last intact commit are left out; ` +
        `${d.recovery.commits} commits read. What is shown is the newest intact state; the game would open the same.`;
      $('recovery').append(p);
    }
    for (const k of d.keys) listing.append(entryButton(k.key, `${k.type}, ${k.bytes} bytes`, () => openValue(path, k.key, -1)));
    say(`A store with ${d.keys.length} keys. Choose one.`);
    if (d.keys.length === 1) openValue(path, d.keys[0].key, -1);
    return;
  }
  for (const s of d.slots) {
    const when = s.saved_at ? s.saved_at.replace('T', ' ').replace('Z', ' UTC') : '';
    const meta = s.damaged ? `damaged: ${s.problem}` :
      `generation ${s.generation}, ${s.bytes} bytes${s.sealed ? ', sealed' : ''}, ${when}, played ${Math.round(s.playtime / 60)} min, ` +
      `progress ${Math.round(s.progress * 100)}%` + (s.damaged_newer ? ` — ${s.damaged_newer} newer generation(s) damaged, fell back` : '');
    const button = entryButton(`${s.name} — ${s.title}`, meta, () => openValue(path, s.name, -1, s));
    if (s.thumbnail) {
      const img = document.createElement('img');
      img.alt = `thumbnail of ${s.name}`;
      img.src = `data:image/png;base64,${s.thumbnail}`;
      button.prepend(img);
    }
    if (s.damaged || s.damaged_newer) button.classList.add('damaged');
    listing.append(button);
    for (const g of s.generations.filter((g) => g.damaged)) {
      const p = document.createElement('p');
      p.className = 'damaged meta';
      p.textContent = `${s.name}, generation ${g.generation}: damaged — ${g.problem}`;
      listing.append(p);
    }
  }
  say(`A slots folder with ${d.slots.length} slots. Choose one.`);
}

function entryButton(title, meta, action) {
  const b = document.createElement('button');
  const t = document.createElement('span');
  t.textContent = title;
  const m = document.createElement('div');
  m.className = 'meta';
  m.textContent = meta;
  b.append(t, m);
  b.addEventListener('click', () => run(action));
  return b;
}

function openValue(path, key, generation, slot) {
  const opened = engine('inspector_open', ['number', 'string', 'string', 'number', 'string'], [0, path, key, generation, keyFile]);
  current = { path, key, generation };
  $('described').textContent = `— ${opened.description}`;
  const gens = $('diffgen');
  clear(gens);
  gens.append(new Option('or a generation of this slot', ''));
  for (const g of (slot && slot.generations) || []) if (!g.damaged) gens.append(new Option(`generation ${g.generation}`, String(g.generation)));
  if (opened.sealed_header) {
    clear($('treeroot'));
    window.inspector.opened = opened;
    say(`${opened.description}: ${opened.sealed_header}`);
    $('download').disabled = true;
    return;
  }
  window.inspector.opened = opened;
  window.inspector.nodes = opened.nodes;
  drawRoot(opened.root);
  $('download').disabled = !opened.editable;
  say(`${opened.description}: ${opened.bytes} bytes, ${opened.nodes} values.` +
    (opened.editable ? '' : ` Shown, not editable: ${opened.not_editable}.`));
}

// ---- the tree -------------------------------------------------------------------------------

function drawRoot(root) {
  const tree = $('treeroot');
  clear(tree);
  items.clear();
  const li = makeItem(root, 1);
  tree.append(li);
  select(li);
  if (root.children) expand(li);
}

function makeItem(node, level) {
  const li = document.createElement('li');
  li.setAttribute('role', 'treeitem');
  li.setAttribute('aria-level', String(level));
  li.tabIndex = -1;
  li.dataset.id = node.id;
  li.node = node;
  const row = document.createElement('span');
  row.className = 'row';
  if (node.label) {
    const label = document.createElement('span');
    label.className = 'label';
    label.textContent = node.label;
    row.append(label, ': ');
  }
  const format = document.createElement('span');
  format.className = 'format';
  format.textContent = node.format;
  const preview = document.createElement('span');
  preview.textContent = node.preview ? ` ${node.preview}` : '';
  const offset = document.createElement('span');
  offset.className = 'offset';
  // A changed node has no place in the original bytes yet: it gets one when saved.
  offset.textContent = node.size === 0 ? '  (changed, not saved yet)' : `  @${node.offset} +${node.size}`;
  row.append(format, preview, offset);
  li.append(row);
  if (node.children) li.setAttribute('aria-expanded', 'false');
  // A click selects; a click on the selected item opens or closes it.
  li.addEventListener('click', (e) => {
    e.stopPropagation();
    const again = selected === li;
    select(li);
    if (again && node.children && e.target.closest('.row') === row) toggle(li);
  });
  items.set(node.id, li);
  return li;
}

// Draws count children of li from the from-th after those drawn (replace: instead of them,
// with a way back to the first ones, when a search jumps deep into a long array).
function loadChildren(li, from, replace) {
  let group = li.querySelector(':scope > ul');
  if (!group) {
    group = document.createElement('ul');
    group.setAttribute('role', 'group');
    li.append(group);
  }
  if (replace) clear(group);
  const answer = engine('inspector_children', ['number', 'number', 'number', 'number'], [0, li.node.id, from, pageSize]);
  const level = Number(li.getAttribute('aria-level')) + 1;
  const more = group.querySelector(':scope > .more.after');
  if (more) more.remove();
  if (replace && from > 0) group.append(moreItem(`… ${from} before (Enter to show from the first)`, () => loadChildren(li, 0, true), 'before'));
  for (const child of answer.children) group.append(makeItem(child, level));
  const shown = from + answer.children.length;
  if (shown < answer.total) group.append(moreItem(`… ${answer.total - shown} more (Enter to show)`, () => loadChildren(li, shown), 'after'));
  li.loaded = shown;
  return answer;
}
function moreItem(text, action, where) {
  const m = document.createElement('li');
  m.className = `more ${where}`;
  m.setAttribute('role', 'treeitem');
  m.tabIndex = -1;
  m.textContent = text;
  m.addEventListener('click', (e) => { e.stopPropagation(); action(); });
  m.more = action;
  return m;
}

function expand(li) {
  if (!li.node || !li.node.children) return;
  if (!li.loaded) loadChildren(li, 0);
  li.setAttribute('aria-expanded', 'true');
  li.querySelector(':scope > ul').hidden = false;
}
function collapse(li) {
  if (li.getAttribute('aria-expanded') !== 'true') return;
  li.setAttribute('aria-expanded', 'false');
  li.querySelector(':scope > ul').hidden = true;
}
function toggle(li) { li.getAttribute('aria-expanded') === 'true' ? collapse(li) : expand(li); }

function select(li) {
  if (selected) selected.setAttribute('aria-selected', 'false');
  selected = li;
  li.setAttribute('aria-selected', 'true');
  li.focus({ preventScroll: false });
  if (!li.node) return;
  const path = engine('inspector_path', ['number', 'number'], [0, li.node.id]);
  li.path = path;
  $('editpath').textContent = path ? `— ${path}` : '— the whole value';
  const box = $('editbox');
  if (li.node.children > 2000) {
    box.value = '';
    box.placeholder = `${li.node.children} children: select one of them to edit it`;
  } else {
    try { box.value = engine('inspector_editable', ['number', 'string'], [0, path]).json.trimEnd(); } catch (e) { box.value = ''; box.placeholder = e.message; }
  }
}

function visibleItems() {
  return Array.from($('treeroot').querySelectorAll('[role=treeitem]')).filter((li) => li.offsetParent !== null);
}

$('treeroot').addEventListener('keydown', (e) => {
  if (!selected) return;
  const all = visibleItems();
  const at = all.indexOf(selected);
  const go = (li) => { if (li) { e.preventDefault(); select(li); } };
  switch (e.key) {
    case 'ArrowDown': go(all[at + 1]); break;
    case 'ArrowUp': go(all[at - 1]); break;
    case 'Home': go(all[0]); break;
    case 'End': go(all[all.length - 1]); break;
    case 'ArrowRight':
      e.preventDefault();
      if (selected.getAttribute('aria-expanded') === 'false') expand(selected);
      else if (selected.getAttribute('aria-expanded') === 'true') go(selected.querySelector(':scope > ul > [role=treeitem]'));
      break;
    case 'ArrowLeft':
      e.preventDefault();
      if (selected.getAttribute('aria-expanded') === 'true') collapse(selected);
      else go(selected.parentElement.closest('[role=treeitem]'));
      break;
    case 'Enter':
      e.preventDefault();
      if (selected.more) selected.more(); else $('editbox').focus();
      break;
    case 'Delete': e.preventDefault(); run(removeSelected); break;
    case 'Insert': e.preventDefault(); $('newkey').focus(); break;
  }
});
document.addEventListener('keydown', (e) => {
  if (e.key === '/' && !['INPUT', 'TEXTAREA'].includes(document.activeElement.tagName)) { e.preventDefault(); $('search').focus(); }
});

// Opens the ancestors in chain (ids, the root first) and selects id; positions says where
// each next one stands among its parent's children, to draw the page that holds it.
function reveal(chain, positions, id) {
  for (let k = 0; k < chain.length; ++k) {
    const li = items.get(chain[k]);
    if (!li) return false;
    expand(li);
    const next = k + 1 < chain.length ? chain[k + 1] : id;
    if (!items.get(next)) loadChildren(li, Math.floor(positions[k] / pageSize) * pageSize, true);
  }
  const target = items.get(id);
  if (target) { select(target); target.scrollIntoView({ block: 'nearest' }); }
  return Boolean(target);
}

// ---- search, edit, save -----------------------------------------------------------------------

function search() {
  const query = $('search').value;
  const hits = engine('inspector_search', ['number', 'string', 'number', 'number'], [0, query, Number($('searchmode').value), 50]);
  const list = $('results');
  clear(list);
  for (const hit of hits) {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.textContent = hit.path || '(the whole value)';
    b.addEventListener('click', () => reveal(hit.chain, hit.positions, hit.id));
    li.append(b);
    list.append(li);
  }
  if (hits.length) reveal(hits[0].chain, hits[0].positions, hits[0].id);
  say(hits.length ? `${hits.length} found${hits.length === 50 ? ' (the first 50)' : ''}.` : `Nothing matches "${query}".`);
  return hits;
}

function afterEdit(opened, path, what) {
  window.inspector.opened = opened;
  window.inspector.nodes = opened.nodes;
  drawRoot(opened.root);
  const hits = path ? engine('inspector_search', ['number', 'string', 'number', 'number'], [0, path, 0, 1]) : [];
  if (hits.length) reveal(hits[0].chain, hits[0].positions, hits[0].id);
  say(`${what}. Not saved yet: "Save as a new file" writes it.`);
}

function explain(e, box) {
  if (box && e.offset !== undefined && e.code !== 'invalid_path') {
    box.focus();
    box.setSelectionRange(e.offset, e.offset + 1);
  }
  return `${e.message}${e.code === 'invalid_value' || e.code === 'syntax_error' ? ' — fix the value and apply again.' : ''}`;
}

function applyEdit() {
  if (!selected || selected.path === undefined) throw new Error('select a value first');
  const path = selected.path;
  const box = $('editbox');
  try {
    afterEdit(engine('inspector_edit', ['number', 'number', 'string', 'string', 'string', 'number'],
      [0, 0, path, '', box.value, $('retype').checked ? 1 : 0]), path, `Changed ${path || 'the value'}`);
  } catch (e) { throw new Error(explain(e, box)); }
}
function insertChild() {
  if (!selected || selected.path === undefined) throw new Error('select an array or a map first');
  const path = selected.path;
  const key = $('newkey').value;
  if (selected.node.kind !== 'array' && selected.node.kind !== 'map') throw new Error('select the array or map to add to');
  if (selected.node.kind === 'map' && !key) throw new Error('give the new entry a key');
  const index = selected.node.kind === 'array' && key === '' ? String(selected.node.children) : key;
  afterEdit(engine('inspector_edit', ['number', 'number', 'string', 'string', 'string', 'number'],
    [0, 1, path, index, $('editbox').value, $('retype').checked ? 1 : 0]), path, `Added to ${path || 'the value'}`);
}
function removeSelected() {
  if (!selected || !selected.path) throw new Error('select an element or entry to remove (not the whole value)');
  const path = selected.path;
  const parent = path.replace(/(\.[^.[\]]+|\.?"(?:[^"\\]|\\.)*"|\[\d+\])$/, '');
  afterEdit(engine('inspector_edit', ['number', 'number', 'string', 'string', 'string', 'number'], [0, 2, path, '', '', 0]),
    parent, `Removed ${path}`);
}

function download() {
  const out = `/out/${++folders}`;
  Module.FS.mkdirTree(out);
  const saved = engine('inspector_save', ['number', 'string'], [0, out]);
  const bytes = Module.FS.readFile(saved.file);
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
  a.download = saved.name;
  document.body.append(a);
  a.click();
  a.remove();
  window.inspector.lastSave = saved;
  say(`Saved as ${saved.what}: downloading ${saved.name}. Your original file is unchanged.`);
}

// ---- compare ----------------------------------------------------------------------------------

async function compare() {
  if (!current) throw new Error('open a save first');
  const files = $('difffile').files;
  const generation = $('diffgen').value;
  if (generation) {
    engine('inspector_open', ['number', 'string', 'string', 'number', 'string'], [1, current.path, current.key, Number(generation), keyFile]);
  } else if (files.length) {
    const root = await putFiles(files);
    const d = engine('inspector_describe', ['string'], [root]);
    engine('inspector_open', ['number', 'string', 'string', 'number', 'string'], [1, root, d.kind === 'value' ? '' : current.key, -1, keyFile]);
  } else {
    throw new Error('choose another save, or a generation of this slot, to compare with');
  }
  const ignore = $('ignore').value.split(',').map((s) => s.trim()).filter(Boolean).join('\n');
  const result = engine('inspector_diff', ['string', 'string'], [$('idfield').value, ignore]);
  const list = $('diff');
  clear(list);
  for (const c of result.changes) {
    const li = document.createElement('li');
    li.className = c.change;
    const sign = c.change === 'added' ? '+' : c.change === 'removed' ? '−' : '~';
    li.textContent = `${sign} ${c.path || '(the whole value)'}: ` +
      (c.change === 'changed' ? `${c.a} → ${c.b}` : c.change === 'added' ? c.b : c.a);
    list.append(li);
  }
  window.inspector.diff = result;
  say(result.changes.length ? `${result.changes.length} difference(s)${result.truncated ? ' (the first ones)' : ''}.` : 'The two saves are the same.');
}

// ---- wiring -----------------------------------------------------------------------------------

// Runs an action, saying what went wrong in words instead of throwing.
async function run(action) {
  if (!window.inspector.ready) return say('Still loading; try again in a moment.', true);
  try { await action(); } catch (e) { say(e.message, true); }
}

async function openFiles(fileList) {
  const root = await putFiles(fileList);
  idbSource = null;
  $('saveidb').hidden = true;
  try {
    describeAndShow(root);
  } catch (e) {
    throw new Error(`${e.message}. This does not look like a savekit store, slot or slots folder, or a MessagePack or JSON value.`);
  }
}

$('files').addEventListener('change', (e) => run(() => openFiles(e.target.files)));
$('folder').addEventListener('change', (e) => run(() => openFiles(e.target.files)));
$('keyfile').addEventListener('change', (e) => run(async () => {
  const f = e.target.files[0];
  keyFile = `/keys/${++folders}`;
  Module.FS.mkdirTree('/keys');
  Module.FS.writeFile(keyFile, new Uint8Array(await f.arrayBuffer()));
  $('keyname').textContent = f.name;
  if (current) openValue(current.path, current.key, current.generation);
  say(`Keys from ${f.name}: sealed saves open with them.`);
}));
$('schemafile').addEventListener('change', (e) => run(async () => {
  const f = e.target.files[0];
  engine('inspector_schema', ['string'], [await f.text()]);
  $('schemaname').textContent = f.name;
  const problems = current ? engine('inspector_check', ['number'], [0]) : [];
  say(problems.length ? `Schema ${f.name}: this save breaks it already at ${problems[0].path}: ${problems[0].reason}` :
    `Schema ${f.name}: edits that break it are refused.`, problems.length > 0);
}));
const drop = $('drop');
drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  run(() => openFiles(e.dataTransfer.files));
});
$('searchgo').addEventListener('click', () => run(search));
$('search').addEventListener('keydown', (e) => { if (e.key === 'Enter') run(search); });
$('apply').addEventListener('click', () => run(applyEdit));
$('editbox').addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) run(applyEdit); });
$('insert').addEventListener('click', () => run(insertChild));
$('remove').addEventListener('click', () => run(removeSelected));
$('download').addEventListener('click', () => run(download));
$('diffgo').addEventListener('click', () => run(compare));
$('idblist').addEventListener('click', () => run(findGameSaves));
$('saveidb').addEventListener('click', () => run(saveIntoGame));

Object.assign(window.inspector, { say, findGameSaves, openGameSaves, saveIntoGame, openFiles, search, applyEdit, insertChild, removeSelected, download, compare, reveal, run });
})();
