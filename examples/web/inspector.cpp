// The save inspector page's engine (inspector.html, inspector.js): the same readers, edits,
// diff and schema checks as `savekit show/diff/edit/schema` (tools/value_sources.cpp is
// compiled in, unchanged), over files the page puts into Emscripten's in-memory file
// system. Nothing here or in the page makes a network request: the files a person opens
// are read by the browser and handed over as bytes.
//
// Every function returns JSON text the page parses (valid until the next call). A document
// (0: the one shown, 1: the other side of a diff) keeps its tree and a flat index over it
// (a node's id is its place in a pre-order walk), so the page asks for children a screenful
// at a time instead of receiving a 10 MB save's million nodes at once.
#include <emscripten/emscripten.h>

#include <savekit/file_backend.hpp>
#include <savekit/indexeddb.hpp>
#include <savekit/inspect_diff.hpp>
#include <savekit/inspect_edit.hpp>
#include <savekit/json.hpp>
#include <savekit/prefs.hpp>
#include <savekit/schema_check.hpp>
#include <savekit/slots.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "cli_files.hpp"
#include "slot_sync_access.hpp"  // (the library's own: generation files whole, as the cloud sync takes them)
#include "value_sources.hpp"
#if SAVEKIT_INSPECTOR_SEAL
#include "key_files.hpp"
#endif

namespace {

using savekit::inspect::node;

struct document {
  savekit_cli::value_source source;
  savekit_cli::opened_value value;
  node tree;
  std::vector<const node*> by_id;     // pre-order, keys included
  std::vector<std::uint32_t> parent;  // by id; the root's is itself
  std::vector<std::uint32_t> size;    // by id: the nodes in its subtree, itself included
  bool edited = false;
  savekit::status editable;  // why paths cannot name every value (inspect::editable), if they cannot
};

std::optional<document> documents[2];
std::optional<savekit::inspect::schema> loaded_schema;
std::string answer;  // what the last call returned

const char* reply(std::string json) {
  answer = std::move(json);
  return answer.c_str();
}
std::string json_text(std::string_view text) {
  return savekit::is_valid_utf8(text) ? savekit::to_json(std::string{text})
                                      : savekit::to_json(savekit::base64_encode(text) + " (Base64: not UTF-8)");
}
const char* failed(const savekit::error& e) {
  return reply("{\"error\":{\"code\":" + json_text(savekit::to_string(e.code())) +
               ",\"offset\":" + std::to_string(e.offset()) + ",\"message\":" + json_text(e.message()) + "}}");
}
const char* failed(std::string message) {
  return failed(savekit::error{savekit::errc::invalid_value, 0, std::move(message)});
}

void build_index(document& d) {
  d.by_id.clear();
  d.parent.clear();
  std::vector<std::pair<const node*, std::uint32_t>> stack{{&d.tree, 0}};
  while (!stack.empty()) {
    auto [n, parent] = stack.back();
    stack.pop_back();
    const auto id = static_cast<std::uint32_t>(d.by_id.size());
    d.by_id.push_back(n);
    d.parent.push_back(id == 0 ? 0 : parent);
    for (std::size_t i = n->items.size(); i-- > 0;) stack.push_back({&n->items[i], id});
  }
  // A subtree's nodes follow its root in pre-order; children have larger ids than parents.
  d.size.assign(d.by_id.size(), 1);
  for (std::size_t id = d.by_id.size(); id-- > 1;) d.size[d.parent[id]] += d.size[id];
}

// The ids of n's items from the first-th, up to count of them: the first item follows n,
// each next one follows its sibling's subtree.
std::vector<std::uint32_t> item_ids(const document& d, std::uint32_t id, std::size_t first, std::size_t count) {
  std::vector<std::uint32_t> out;
  const node* n = d.by_id[id];
  std::uint32_t next = id + 1;
  for (std::size_t i = 0; i < n->items.size() && out.size() < count; ++i) {
    if (i >= first) out.push_back(next);
    next += d.size[next];
  }
  return out;
}

// Where a node stands among its parent's children as the page lists them (a map's entries).
std::size_t position_of(const document& d, std::uint32_t id) {
  const node* parent = d.by_id[d.parent[id]];
  const auto index = static_cast<std::size_t>(d.by_id[id] - parent->items.data());
  return parent->kind == savekit::inspect::kind::map ? index / 2 : index;
}

std::string path_of(const document& d, std::uint32_t id) {
  std::vector<std::uint32_t> chain;
  for (std::uint32_t at = id; at != 0; at = d.parent[at]) chain.push_back(at);
  std::string path;
  std::uint32_t here = 0;
  for (std::size_t k = chain.size(); k-- > 0;) {
    const node* parent = d.by_id[here];
    const node* child = d.by_id[chain[k]];
    const auto index = static_cast<std::size_t>(child - parent->items.data());
    path = parent->kind == savekit::inspect::kind::map ? savekit::inspect::child_path(path, parent->items[index - 1])
                                                       : savekit::inspect::child_path(path, index);
    here = chain[k];
  }
  return path;
}

std::string kind_name(savekit::inspect::kind k) {
  static constexpr const char* names[] = {"null",  "boolean", "integer", "float", "string",
                                          "bytes", "array",   "map",     "ext"};
  return names[static_cast<int>(k)];
}

// A node as the page draws it: one line's worth.
std::string summary_json(const document& d, std::uint32_t id, const std::string& label) {
  const node& n = *d.by_id[id];
  std::string preview =
      savekit::inspect::render(n, {.offsets = false, .max_bytes = 24, .max_string = 120, .children = false});
  preview = preview.substr(0, preview.find('\n'));
  if (preview.starts_with(n.format)) preview = preview.substr(n.format.size());
  if (!preview.empty() && preview[0] == ' ') preview.erase(0, 1);
  const std::size_t children = n.kind == savekit::inspect::kind::map ? n.items.size() / 2 : n.items.size();
  return "{\"id\":" + std::to_string(id) + ",\"label\":" + json_text(label) + ",\"kind\":\"" + kind_name(n.kind) +
         "\",\"format\":" + json_text(n.format) + ",\"offset\":" + std::to_string(n.offset) +
         ",\"size\":" + std::to_string(n.size) + ",\"preview\":" + json_text(preview) +
         ",\"children\":" + std::to_string(children) + "}";
}

std::string label_of_key(const node& key) {
  if (key.kind == savekit::inspect::kind::string) return key.text;
  std::string line = savekit::inspect::render(key, {.offsets = false});
  return "(" + line.substr(0, line.find('\n')) + ")";
}

document* doc(int which) {
  if (which < 0 || which > 1 || !documents[which]) return nullptr;
  return &*documents[which];
}

const char* open_result(document& d) {
  build_index(d);
  d.editable = savekit::inspect::editable(d.tree);
  return reply("{\"description\":" + json_text(d.value.description) +
               ",\"bytes\":" + std::to_string(d.value.bytes.size()) + ",\"wire\":\"" +
               (d.value.wire == savekit::inspect::wire::json ? "json" : "msgpack") +
               "\",\"nodes\":" + std::to_string(d.by_id.size()) + ",\"root\":" + summary_json(d, 0, "") +
               ",\"editable\":" + (d.editable && !d.value.lone_file ? "true" : "false") + ",\"not_editable\":" +
               json_text(d.value.lone_file ? "a generation file on its own is shown, not edited: open its slots folder"
                         : d.editable      ? ""
                                           : d.editable.error().message()) +
               "}");
}

// ---- the site's own saves, in IndexedDB --------------------------------------------------------
//
// The page, served beside the game, reads the game's IndexedDB stores and slots. It copies a
// snapshot into its memory (read-only: no lock is taken, the game goes on playing) and opens
// the copy as it opens files. An edit goes back only as a new commit or generation, and only
// when the game does not hold the store (a Web Lock: the page then takes it for the write) and
// has not saved since the snapshot. Each call answers later, through Module.inspectorIdbDone.

EM_JS(void, idb_answer, (const char* json), { Module.inspectorIdbDone(UTF8ToString(json)); });

// Kept alive until IndexedDB has answered a write.
std::optional<savekit::prefs> writing_store;
std::optional<savekit::slots> writing_slots;

savekit::web::indexeddb_options snapshot_options() {
  savekit::web::indexeddb_options o;
  o.request_persistence = false;
  o.save_when_hidden = false;
  o.exclusive = false;
  o.read_only = true;
  return o;
}

const char* locked_or(const savekit::error& e) {
  if (e.code() == savekit::errc::locked)
    return failed(savekit::error{e.code(), 0,
                                 "the game has these saves open (in another tab): close it, then save again — or "
                                 "save as a new file"});
  return failed(e);
}

}  // namespace

extern "C" {

// Copies the store `name` (database "savekit:" + name) into folder/store.prefs; answers {"path"}.
EMSCRIPTEN_KEEPALIVE void inspector_copy_idb_store(const char* name_text, const char* folder_text) {
  const std::string name = name_text, folder = folder_text;
  savekit::web::open_indexeddb(
      name,
      [folder](savekit::result<savekit::prefs> game, const savekit::web::storage_info&) {
        if (!game) return idb_answer(failed(game.error()));
        std::error_code ignored;
        std::filesystem::create_directories(folder, ignored);
        const std::string path = folder + "/store.prefs";
        auto copy = savekit::prefs::open(savekit::make_file_backend(path));
        if (!copy) return idb_answer(failed(copy.error()));
        for (const std::string& key : game->keys()) {
          auto stored = game->get_raw(key);
          if (!stored) return idb_answer(failed(stored.error()));
          if (auto set = copy->set_raw(key, stored->type, stored->bytes); !set) return idb_answer(failed(set.error()));
        }
        if (auto saved = copy->save(); !saved) return idb_answer(failed(saved.error()));
        idb_answer(reply("{\"path\":" + json_text(path) + "}"));
      },
      snapshot_options());
}

// Copies the slots `name` (database "savekit-slots:" + name) into folder, every kept intact
// generation as the same file; answers {"path"}.
EMSCRIPTEN_KEEPALIVE void inspector_copy_idb_slots(const char* name_text, const char* folder_text) {
  const std::string name = name_text, folder = folder_text;
  savekit::web::indexeddb_slots_options o;
  o.slots.read_only = true;
  o.request_persistence = false;
  o.exclusive = false;
  o.load = savekit::web::slot_loading::everything_at_open;  // every generation is copied
  savekit::web::open_slots(
      name,
      [folder](savekit::result<savekit::slots> game, const savekit::web::storage_info&) {
        if (!game) return idb_answer(failed(game.error()));
        std::error_code ignored;
        std::filesystem::create_directories(folder, ignored);
        auto menu = game->list();
        if (!menu) return idb_answer(failed(menu.error()));
        for (const savekit::slot_info& slot : *menu) {
          auto history = game->history(slot.name);
          if (!history) return idb_answer(failed(history.error()));
          for (const savekit::generation_info& g : *history) {
            if (g.damaged) continue;
            auto whole = savekit::detail::slot_sync_access::generation(*game, slot.name, g.generation);
            if (!whole) continue;  // (unreadable: the menu of the copy leaves it out)
            const std::string file = savekit::detail::slot_file_name_of(
                savekit::detail::slot_file_base(slot.name), g.generation, savekit::detail::slot_file_kind::generation);
            if (auto written = savekit_cli::write_file(folder + "/" + file, whole->file); !written)
              return idb_answer(failed(written.error()));
          }
        }
        if (auto lock = savekit_cli::write_file(folder + "/.savekit-slots.lock", ""); !lock)
          return idb_answer(failed(lock.error()));
        idb_answer(reply("{\"path\":" + json_text(folder) + "}"));
      },
      o);
}

// Writes document which's edit into the game's IndexedDB store or slots `name` (kind
// "store" or "slots"): a new commit or generation; answers {"what"} or an error (locked: the
// game has them; already_exists: the game saved since the snapshot).
EMSCRIPTEN_KEEPALIVE void inspector_save_idb(int which, const char* kind_text, const char* name_text) {
  document* d = doc(which);
  if (!d) return idb_answer(failed("nothing is open"));
  if (d->value.sealed && !d->source.sealer) return idb_answer(failed("a sealed save is edited with its keys"));
  auto bytes = savekit::inspect::write(d->tree, d->value.bytes, d->value.wire);
  if (!bytes) return idb_answer(failed(bytes.error()));
  auto payload = savekit_cli::stored_form(d->value, *bytes);
  if (!payload) return idb_answer(failed(payload.error()));
  const std::string name = name_text, key = d->source.key;
  const savekit_cli::opened_value opened = d->value;
  const auto sealer = d->source.sealer;
  if (std::string_view{kind_text} == "store") {
    savekit::web::indexeddb_options o;
    o.request_persistence = false;
    o.save_when_hidden = false;
    savekit::web::open_indexeddb(
        name,
        [key, opened, sealer, stored = *payload](savekit::result<savekit::prefs> game,
                                                 const savekit::web::storage_info&) {
          if (!game) return idb_answer(locked_or(game.error()));
          if (auto now = game->get_raw(key); !now || now->bytes != opened.as_stored)
            return idb_answer(
                failed(savekit::error{savekit::errc::already_exists, 0,
                                      "the game saved this entry since it was opened here: open it again"}));
          const auto type = static_cast<savekit::value_type>(opened.stored_type);
          savekit::status set =
              opened.sealed ? game->set_sealed(key, type, stored, *sealer) : game->set_raw(key, type, stored);
          if (!set) return idb_answer(failed(set.error()));
          writing_store = std::move(*game);
          writing_store->save_async([](savekit::status saved) {
            writing_store.reset();  // (the lock goes with it: the game may open the store again)
            idb_answer(saved ? reply("{\"what\":\"a new commit in the game's store\"}") : failed(saved.error()));
          });
        },
        o);
    return;
  }
  savekit::web::indexeddb_slots_options o;
  o.request_persistence = false;
  o.slots.sealer = sealer;
  savekit::web::open_slots(
      name,
      [key, opened, stored = *payload](savekit::result<savekit::slots> game, const savekit::web::storage_info&) {
        if (!game) return idb_answer(locked_or(game.error()));
        auto info = game->info(key);
        if (!info) return idb_answer(failed(info.error()));
        if (info->generation != opened.generation)
          return idb_answer(failed(savekit::error{savekit::errc::already_exists, 0,
                                                  "the game saved this slot since it was opened here: open it again"}));
        savekit::slot_meta meta = info->meta;
        if (info->thumbnail_bytes != 0)
          if (auto thumbnail = game->thumbnail(key)) meta.thumbnail = std::move(*thumbnail);
        savekit::status written =
            game->write_bytes(key, stored, static_cast<savekit::object_encoding>(opened.encoding),
                              std::max<std::uint32_t>(opened.schema_version, 1), meta, {.sealed = opened.sealed});
        if (!written) return idb_answer(failed(written.error()));
        writing_slots = std::move(*game);
        writing_slots->when_durable([](savekit::status durable) {
          writing_slots.reset();  // (the lock goes with it)
          idb_answer(durable ? reply("{\"what\":\"a new generation in the game's slots\"}") : failed(durable.error()));
        });
      },
      o);
}

// What path holds: {"kind":"store","keys":[...],"recovery":{...}}, {"kind":"slots","slots":[...]}
// (the load menu from headers, each slot's kept generations), or {"kind":"value"}.
EMSCRIPTEN_KEEPALIVE const char* inspector_describe(const char* path_text) {
  const std::string path = path_text;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return failed("no file " + path);
  if (S_ISDIR(st.st_mode)) {
    auto s = savekit::slots::open(path, {.read_only = true, .create_if_missing = false});
    if (!s) return failed(s.error());
    auto menu = s->list();
    if (!menu) return failed(menu.error());
    std::string out = "{\"kind\":\"slots\",\"slots\":[";
    for (std::size_t i = 0; i < menu->size(); ++i) {
      const savekit::slot_info& slot = (*menu)[i];
      std::string thumbnail;
      if (slot.thumbnail_bytes != 0)
        if (auto picture = s->thumbnail(slot.name))
          thumbnail = savekit::base64_encode(std::span<const std::byte>{*picture});
      std::string generations;
      if (auto history = s->history(slot.name))
        for (const auto& g : *history)
          generations +=
              std::string(generations.empty() ? "" : ",") + "{\"generation\":" + std::to_string(g.generation) +
              ",\"saved_at\":" + json_text(g.damaged ? "" : savekit_cli::rfc3339(g.saved_at)) +
              ",\"title\":" + json_text(g.meta.title) + ",\"bytes\":" + std::to_string(g.bytes) +
              ",\"damaged\":" + (g.damaged ? "true" : "false") + ",\"problem\":" + json_text(g.problem) + "}";
      out += std::string(i ? "," : "") + "{\"name\":" + json_text(slot.name) +
             ",\"title\":" + json_text(slot.meta.title) +
             ",\"saved_at\":" + json_text(slot.damaged ? "" : savekit_cli::rfc3339(slot.saved_at)) +
             ",\"playtime\":" + std::to_string(slot.meta.playtime.count()) +
             ",\"progress\":" + savekit::to_json(slot.meta.progress) +
             ",\"generation\":" + std::to_string(slot.generation) + ",\"bytes\":" + std::to_string(slot.bytes) +
             ",\"sealed\":" + (slot.sealed ? "true" : "false") + ",\"damaged\":" + (slot.damaged ? "true" : "false") +
             ",\"damaged_newer\":" + std::to_string(slot.damaged_newer) + ",\"problem\":" + json_text(slot.problem) +
             ",\"thumbnail\":" + json_text(thumbnail) + ",\"generations\":[" + generations + "]}";
    }
    return reply(out + "]}");
  }
  auto kind = savekit_cli::kind_of(path);
  if (!kind) return failed(kind.error());
  if (*kind != savekit_cli::file_kind::store) return reply("{\"kind\":\"value\"}");
  savekit::file_backend_options options;
  options.read_only = true;
  options.create_if_missing = false;
  auto store = savekit::prefs::open(savekit::make_file_backend(path, savekit::posix_file_system(), options));
  if (!store) return failed(store.error());
  std::string out =
      "{\"kind\":\"store\",\"recovery\":{\"recovered\":" + std::string(store->recovery().recovered ? "true" : "false") +
      ",\"commits\":" + std::to_string(store->recovery().commits_loaded) +
      ",\"bytes_discarded\":" + std::to_string(store->recovery().bytes_discarded) +
      ",\"detail\":" + json_text(store->recovery().detail) + "},\"keys\":[";
  bool first = true;
  for (const std::string& key : store->keys()) {
    auto stored = store->get_raw(key);
    if (!stored) continue;
    out += std::string(first ? "" : ",") + "{\"key\":" + json_text(key) +
           ",\"type\":" + json_text(savekit::to_string(stored->type)) +
           ",\"bytes\":" + std::to_string(stored->bytes.size()) + "}";
    first = false;
  }
  return reply(out + "]}");
}

// Opens a value into document `which` (see value_sources.hpp); generation < 0 for the newest.
EMSCRIPTEN_KEEPALIVE const char* inspector_open(int which, const char* path, const char* key, double generation,
                                                const char* key_file) {
  if (which < 0 || which > 1) return failed("no such document");
  documents[which].reset();
  document d;
  d.source.path = path;
  d.source.key = key;
  if (generation >= 0) d.source.generation = static_cast<std::uint64_t>(generation);
  if (*key_file) {
#if SAVEKIT_INSPECTOR_SEAL
    auto sealer = savekit_cli::sealer_from_key_file(key_file, "");
    if (!sealer) return failed(sealer.error());
    d.source.sealer = *sealer;
#else
    return failed("this page was built without sealed saves");
#endif
  }
  auto value = savekit_cli::open_value(d.source);
  if (!value) return failed(value.error());
  d.value = std::move(*value);
  if (d.value.sealed && !d.value.sealed_header.empty())
    return reply("{\"description\":" + json_text(d.value.description) +
                 ",\"sealed_header\":" + json_text(d.value.sealed_header) + "}");
  auto tree = d.value.wire == savekit::inspect::wire::json ? savekit::inspect::read_json(d.value.bytes)
                                                           : savekit::inspect::read_msgpack(d.value.bytes);
  if (!tree) return failed(tree.error());
  d.tree = std::move(*tree);
  documents[which] = std::move(d);
  return open_result(*documents[which]);
}

// Up to count children of node id from the from-th: [{id,label,kind,format,offset,size,preview,children}].
EMSCRIPTEN_KEEPALIVE const char* inspector_children(int which, int id, int from, int count) {
  document* d = doc(which);
  if (!d || id < 0 || static_cast<std::size_t>(id) >= d->by_id.size()) return failed("no such node");
  const node& n = *d->by_id[static_cast<std::size_t>(id)];
  const bool map = n.kind == savekit::inspect::kind::map;
  const std::size_t total = map ? n.items.size() / 2 : n.items.size();
  const std::size_t first = static_cast<std::size_t>(std::max(from, 0));
  const std::size_t shown =
      std::min<std::size_t>(static_cast<std::size_t>(std::max(count, 0)), total - std::min(first, total));
  const std::vector<std::uint32_t> ids =
      item_ids(*d, static_cast<std::uint32_t>(id), map ? 2 * first : first, map ? 2 * shown : shown);
  std::string out = "{\"total\":" + std::to_string(total) + ",\"children\":[";
  for (std::size_t k = 0; k < shown; ++k) {
    const std::size_t i = first + k;
    const std::uint32_t child = map ? ids[2 * k + 1] : ids[k];
    const std::string label = map ? label_of_key(n.items[2 * i]) : "[" + std::to_string(i) + "]";
    out += std::string(k ? "," : "") + summary_json(*d, child, label);
  }
  return reply(out + "]}");
}

EMSCRIPTEN_KEEPALIVE const char* inspector_path(int which, int id) {
  document* d = doc(which);
  if (!d || id < 0 || static_cast<std::size_t>(id) >= d->by_id.size()) return failed("no such node");
  return reply(json_text(path_of(*d, static_cast<std::uint32_t>(id))));
}

// Nodes whose path (in_values 0: a path or a key's text) or value (1) contains query; each
// with its ancestors' ids and where each next one stands among its parent's children, for the
// page to open them: [{id, path, chain:[root, ...], positions:[...]}].
EMSCRIPTEN_KEEPALIVE const char* inspector_search(int which, const char* query_text, int in_values, int max) {
  document* d = doc(which);
  if (!d) return failed("nothing is open");
  const std::string_view query = query_text;
  std::vector<std::uint32_t> hits;
  if (!in_values)
    if (const node* exact = savekit::inspect::at(d->tree, query); exact && !query.empty())
      for (std::uint32_t id = 0; id < d->by_id.size(); ++id)
        if (d->by_id[id] == exact) hits.push_back(id);
  for (std::uint32_t id = 1; id < d->by_id.size() && hits.size() < static_cast<std::size_t>(max); ++id) {
    const node* n = d->by_id[id];
    const node* parent = d->by_id[d->parent[id]];
    const auto index = static_cast<std::size_t>(n - parent->items.data());
    const bool is_key = parent->kind == savekit::inspect::kind::map && index % 2 == 0;
    if (is_key && !n->items.empty()) {  // a key that is an array or a map: nothing in it has a path
      id += d->size[id] - 1;
      continue;
    }
    const bool scalar =
        n->items.empty() && n->kind != savekit::inspect::kind::array && n->kind != savekit::inspect::kind::map;
    bool match = false;
    if (in_values)
      match = !is_key && scalar && n->text.find(query) != std::string::npos;
    else
      match = is_key && n->text.find(query) != std::string::npos;
    const std::uint32_t shown = is_key ? id + d->size[id] : id;  // a key stands for its value, after it
    if (match && (hits.empty() || hits.front() != shown)) hits.push_back(shown);
  }
  std::string out = "[";
  for (std::size_t i = 0; i < hits.size(); ++i) {
    std::string chain, positions;
    for (std::uint32_t at = hits[i]; at != 0; at = d->parent[at]) {
      chain = std::to_string(d->parent[at]) + (chain.empty() ? "" : ",") + chain;
      positions = std::to_string(position_of(*d, at)) + (positions.empty() ? "" : ",") + positions;
    }
    out += std::string(i ? "," : "") + "{\"id\":" + std::to_string(hits[i]) +
           ",\"path\":" + json_text(path_of(*d, hits[i])) + ",\"chain\":[" + chain + "],\"positions\":[" + positions +
           "]}";
  }
  return reply(out + "]");
}

// The value at path as editable JSON (inspect_edit.hpp's form).
EMSCRIPTEN_KEEPALIVE const char* inspector_editable(int which, const char* path) {
  document* d = doc(which);
  if (!d) return failed("nothing is open");
  const node* n = savekit::inspect::at(d->tree, path);
  if (!n) return failed(std::string{"nothing at "} + path);
  auto json = savekit::inspect::to_editable_json(*n);
  if (!json) return failed(json.error());
  return reply("{\"json\":" + json_text(*json) + "}");
}

// Loads a JSON Schema that edits must keep to ("" forgets it).
EMSCRIPTEN_KEEPALIVE const char* inspector_schema(const char* text) {
  if (!*text) {
    loaded_schema.reset();
    return reply("{}");
  }
  auto schema = savekit::inspect::schema::parse(text);
  if (!schema) return failed(schema.error());
  loaded_schema = std::move(*schema);
  return reply("{}");
}

// The schema's problems with document which: [{path, reason}].
EMSCRIPTEN_KEEPALIVE const char* inspector_check(int which) {
  document* d = doc(which);
  if (!d) return failed("nothing is open");
  if (!loaded_schema) return reply("[]");
  std::string out = "[";
  bool first = true;
  for (const auto& p : loaded_schema->check(d->tree, 50)) {
    out +=
        std::string(first ? "" : ",") + "{\"path\":" + json_text(p.path) + ",\"reason\":" + json_text(p.reason) + "}";
    first = false;
  }
  return reply(out + "]");
}

// An edit (0 set the value at path, 1 insert under path at key, 2 remove path), refused
// whole when the schema would refuse what it makes.
EMSCRIPTEN_KEEPALIVE const char* inspector_edit(int which, int what, const char* path, const char* key,
                                                const char* json, int allow_type_changes) {
  document* d = doc(which);
  if (!d) return failed("nothing is open");
  if (d->value.sealed && !d->source.sealer) return failed("a sealed save is edited with its keys");
  if (d->value.lone_file) return failed("a generation file on its own is shown, not edited: open its slots folder");
  // Edits go by path, and a path names a value only where keys are strings or integers, each once.
  if (!d->editable) return failed(d->editable.error());
  std::optional<node> before;
  if (loaded_schema) before = d->tree;
  const savekit::inspect::edit_options o{.allow_type_changes = allow_type_changes != 0};
  savekit::status done = what == 0   ? savekit::inspect::set_value(d->tree, path, json, d->value.wire, o)
                         : what == 1 ? savekit::inspect::insert_value(d->tree, path, key, json, d->value.wire, o)
                                     : savekit::inspect::remove_value(d->tree, path);
  if (!done) {
    if (before) d->tree = std::move(*before);
    build_index(*d);
    return failed(done.error());
  }
  if (loaded_schema) {
    auto problems = loaded_schema->check(d->tree, 5);
    if (!problems.empty()) {
      d->tree = std::move(*before);
      build_index(*d);
      const auto& p = problems.front();
      return failed(savekit::error{
          savekit::errc::invalid_value, 0,
          "the schema refuses it: " + (p.path.empty() ? std::string{"the value"} : p.path) + ": " + p.reason});
    }
  }
  d->edited = true;
  return open_result(*d);
}

// Writes the edited value where a copy of it came from in the page's memory (a store: a new
// commit; a slot: a new generation; a file: the new bytes) and names the file to download.
EMSCRIPTEN_KEEPALIVE const char* inspector_save(int which, const char* out_dir) {
  document* d = doc(which);
  if (!d) return failed("nothing is open");
  if (d->value.lone_file) return failed("a generation file on its own is shown, not edited: open its slots folder");
  auto bytes = savekit::inspect::write(d->tree, d->value.bytes, d->value.wire);
  if (!bytes) return failed(bytes.error());
  if (d->value.kind == savekit_cli::source_kind::file) {
    const std::string name = d->source.path.substr(d->source.path.find_last_of('/') + 1);
    const std::string out = std::string{out_dir} + "/" + name;
    savekit_cli::value_source target = d->source;
    target.path = out;
    if (auto written = savekit_cli::write_value(target, d->value, *bytes); !written) return failed(written.error());
    return reply("{\"file\":" + json_text(out) + ",\"name\":" + json_text(name) + ",\"what\":\"the file\"}");
  }
  // Before and after, to find the generation file a slot write adds.
  std::error_code
      ignored;  // (a folder that does not list: the download is then the folder's path, which fails to read)
  std::vector<std::string> before;
  if (d->value.kind == savekit_cli::source_kind::slot)
    for (const auto& entry : std::filesystem::directory_iterator(d->source.path, ignored))
      before.push_back(entry.path().string());
  auto written = savekit_cli::write_value(d->source, d->value, *bytes);
  if (!written) return failed(written.error());
  std::string file = d->source.path;
  if (d->value.kind == savekit_cli::source_kind::slot)
    for (const auto& entry : std::filesystem::directory_iterator(d->source.path, ignored)) {
      const std::string p = entry.path().string();
      if (p.ends_with(".slot") && std::find(before.begin(), before.end(), p) == before.end()) file = p;
    }
  // What is written now reads back as the original of the next edit (write() read it back
  // already: this cannot fail, and if it did the old tree would not match the new bytes).
  auto tree = d->value.wire == savekit::inspect::wire::json ? savekit::inspect::read_json(*bytes)
                                                            : savekit::inspect::read_msgpack(*bytes);
  if (!tree) return failed(tree.error());
  d->value.bytes = std::move(*bytes);
  d->tree = std::move(*tree);
  build_index(*d);
  d->edited = false;
  return reply("{\"file\":" + json_text(file) + ",\"name\":" + json_text(file.substr(file.find_last_of('/') + 1)) +
               ",\"what\":" + json_text(*written) + "}");
}

// What changed from document 1 to document 0: {"changes":[{change, path, a, b}], "truncated"}.
EMSCRIPTEN_KEEPALIVE const char* inspector_diff(const char* id_field, const char* ignore_lines) {
  if (!doc(0) || !doc(1)) return failed("open two saves to compare");
  savekit::inspect::diff_options o;
  o.id_field = id_field;
  for (std::string_view rest = ignore_lines; !rest.empty();) {
    const std::size_t end = std::min(rest.find('\n'), rest.size());
    if (end > 0) o.ignore.emplace_back(rest.substr(0, end));
    rest = rest.substr(std::min(end + 1, rest.size()));
  }
  // From the other save (the baseline: an older generation, another file) to the one shown.
  const auto result = savekit::inspect::diff(doc(1)->tree, doc(0)->tree, o);
  auto line = [](const node* n) {
    if (!n) return std::string{"null"};
    std::string text =
        savekit::inspect::render(*n, {.offsets = false, .max_bytes = 24, .max_string = 120, .children = false});
    return json_text(text.substr(0, text.find('\n')));
  };
  std::string out = "{\"truncated\":" + std::string(result.truncated ? "true" : "false") + ",\"changes\":[";
  for (std::size_t i = 0; i < result.changes.size(); ++i) {
    const auto& c = result.changes[i];
    const char* what = c.kind == savekit::inspect::change::what::added     ? "added"
                       : c.kind == savekit::inspect::change::what::removed ? "removed"
                                                                           : "changed";
    out += std::string(i ? "," : "") + "{\"change\":\"" + what + "\",\"path\":" + json_text(c.path) +
           ",\"a\":" + line(c.a) + ",\"b\":" + line(c.b) + "}";
  }
  return reply(out + "]}");
}

}  // extern "C"

int main() { return 0; }
