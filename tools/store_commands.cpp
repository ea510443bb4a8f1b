// The savekit program's commands on a store file (store_commands.hpp).
#include "store_commands.hpp"

#include <savekit/file_backend.hpp>
#include <savekit/prefs.hpp>
#include <savekit/savekit.hpp>

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "cli_common.hpp"
#include "cli_files.hpp"
#include "key_options.hpp"
#include "slots_commands.hpp"

// The JSON documents the store commands read and write.
namespace savekit_cli {

struct opened_entry {
  std::string type;
  std::optional<savekit::raw_json> value;
  std::optional<std::string> base64;
};

struct exported_entry {
  std::optional<std::string> key;         // when the key is UTF-8
  std::optional<std::string> key_base64;  // otherwise
  std::optional<std::string> type;
  std::optional<savekit::raw_json> value;  // the readable form, when it is exact
  std::optional<std::string> base64;       // otherwise the stored bytes
  std::optional<opened_entry> opened;      // a sealed entry, opened (export --key-file)
};

struct exported_store {
  std::optional<int> savekit_export;
  std::optional<std::vector<exported_entry>> entries;
};

struct listed_entry {
  std::optional<std::string> key;
  std::optional<std::string> key_base64;
  std::string type;
  std::size_t bytes = 0;
};

struct verify_report {
  std::string path;
  std::string verdict;
  std::uint32_t version = 0;
  std::uint64_t file_bytes = 0;
  std::uint64_t intact_bytes = 0;
  std::uint64_t commits = 0;
  std::uint64_t entries = 0;
  bool torn_tail = false;
  bool damaged = false;
  std::uint64_t intact_records_after_damage = 0;
  std::string problem;
  std::uint64_t sealed_entries = 0;
  std::string seals;                      // none, checked with the keys, not checked (no --key-file)
  std::vector<std::string> seals_failed;  // "KEY: error" for each sealed entry that does not open
};

}  // namespace savekit_cli

namespace savekit_cli {
namespace {

// An entry names its key one way: as text when the key is UTF-8, as Base64 otherwise.
template <class Entry>
void name_key(Entry& entry, const std::string& key) {
  if (valid_utf8(key))
    entry.key = key;
  else
    entry.key_base64 = savekit::base64_encode(key);
}

std::string_view as_text(const std::vector<std::byte>& b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

std::optional<savekit::value_type> type_from_name(std::string_view name) {
  for (auto t = static_cast<int>(savekit::value_type::integer); savekit::is_known(static_cast<savekit::value_type>(t));
       ++t) {
    auto type = static_cast<savekit::value_type>(t);
    if (savekit::to_string(type) == name) return type;
  }
  return std::nullopt;
}

enum class store_access { read, write, write_existing };

savekit::result<savekit::prefs> open_store(const std::string& path, store_access access) {
  bool read_only = access == store_access::read;
  savekit::file_backend_options options;
  options.read_only = read_only;
  options.create_if_missing = access == store_access::write;
  auto store = savekit::prefs::open(savekit::make_file_backend(path, savekit::posix_file_system(), options));
  if (store && !read_only && store->recovery().recovered) {
    const auto& r = store->recovery();
    warn(path, "the store was damaged and has been repaired: " + r.detail + "; " + std::to_string(r.bytes_discarded) +
                   " bytes left out" +
                   (r.damaged_copy.empty() ? "" : "; the damaged file is kept as " + r.damaged_copy));
  }
  return store;
}

void warn_if_damaged(const std::string& path, const savekit::prefs& store, const char* shown) {
  if (store.recovery().recovered)
    warn(path, std::string("damaged; ") + shown + " the newest intact state (" + store.recovery().detail +
                   "); run `savekit verify`");
}

// ---- values as text --------------------------------------------------------------------------

// Encodes a command-line or imported value as the bytes stored for type.
savekit::result<std::string> encode_value(savekit::value_type type, std::string_view text, bool text_is_json) {
  using savekit::value_type;
  auto bad = [&](std::string what) { return savekit::error{savekit::errc::invalid_value, 0, what}; };
  std::string out;
  switch (type) {
    case value_type::integer: {
      auto n = savekit::from_json<std::int64_t>(text);
      if (!n) return bad("not an integer: " + std::string(text));
      savekit::to_msgpack(*n, out);
      return out;
    }
    case value_type::floating: {
      auto d = savekit::from_json<double>(text);
      if (!d) return bad("not a number: " + std::string(text));
      savekit::to_msgpack(*d, out);
      return out;
    }
    case value_type::string: {
      if (!text_is_json) return std::string(text);
      auto s = savekit::from_json<std::string>(text);
      if (!s) return s.error();
      return *s;
    }
    case value_type::sealed:  // its bytes, as Base64 (checked by set_raw: a sealed save's shape)
    case value_type::bytes: {
      std::string_view b64 = text;
      std::string unquoted;
      if (text_is_json) {
        auto s = savekit::from_json<std::string>(text);
        if (!s) return s.error();
        unquoted = *s;
        b64 = unquoted;
      }
      auto bytes = savekit::base64_decode(b64);
      if (!bytes) return bytes.error();
      return std::string(as_text(*bytes));
    }
    case value_type::json: {
      if (auto checked = savekit::json_to_msgpack(text); !checked) return checked.error();
      return std::string(text);
    }
    case value_type::msgpack:
    case value_type::msgpack_compact: {
      auto packed = savekit::json_to_msgpack(text);
      if (!packed) return packed.error();
      return std::string(as_text(*packed));
    }
    case value_type::end_of_known_types:
      break;
  }
  return bad("unknown type");
}

// The value as JSON text when that text encodes back to exactly the stored bytes (so an
// export imports back to the identical store); nullopt when only the raw bytes are exact
// (NaN, a string that is not UTF-8, float32 MessagePack, a non-minimal integer encoding,
// JSON with surrounding whitespace...).
std::optional<std::string> exact_json(const savekit::stored_value& v) {
  using savekit::value_type;
  std::optional<std::string> text;
  switch (v.type) {
    case value_type::integer:
      if (auto n = savekit::from_msgpack<std::int64_t>(v.bytes)) text = savekit::to_json(*n);
      break;
    case value_type::floating:
      if (auto d = savekit::from_msgpack<double>(v.bytes); d && std::isfinite(*d)) text = savekit::to_json(*d);
      break;
    case value_type::string:
      if (valid_utf8(v.bytes)) text = savekit::to_json(v.bytes);
      break;
    case value_type::bytes:
    case value_type::sealed:
      break;
    case value_type::json:
      text = v.bytes;
      break;
    case value_type::msgpack:
    case value_type::msgpack_compact:
      if (auto converted = savekit::msgpack_to_json(v.bytes)) text = std::move(*converted);
      break;
    case value_type::end_of_known_types:
      break;
  }
  if (!text) return std::nullopt;
  auto back = encode_value(v.type, *text, true);
  if (!back || *back != v.bytes) return std::nullopt;
  // What the export document will hold of it: raw_json keeps the text without the
  // whitespace around it, so that must not change it either.
  auto reread = savekit::from_json<savekit::raw_json>(*text);
  if (!reread || reread->text != *text) return std::nullopt;
  return text;
}

// A stored value that its getter cannot read (damage a checksum did not catch, or a store
// written by other tools): said, never printed as if it were good.
std::optional<savekit::error> undecodable(const savekit::stored_value& v) {
  savekit::status decodes = savekit::check_stored_value(v.type, v.bytes);
  if (decodes) return std::nullopt;
  return decodes.error();
}

int cmd_list(const std::string& path, bool json) {
  auto store = open_store(path, store_access::read);
  if (!store) return report(path, store.error());
  output out;
  std::vector<listed_entry> listed;
  for (const std::string& key : store->keys()) {
    auto raw = store->get_raw(key);
    if (json) {
      listed_entry e{{}, {}, std::string(savekit::to_string(raw->type)), raw->bytes.size()};
      name_key(e, key);
      listed.push_back(std::move(e));
      continue;
    }
    char line[96];
    std::string shown = display_key(key);
    std::snprintf(line, sizeof line, " %-16s %10zu bytes", std::string(savekit::to_string(raw->type)).c_str(),
                  raw->bytes.size());
    out.line(shown + std::string(shown.size() < 32 ? 32 - shown.size() : 0, ' ') + line);
  }
  if (json) out.line(savekit::to_json(listed, document_options));
  warn_if_damaged(path, *store, "showing");
  return out.finish(ok);
}

// sealer: opens a sealed entry (--key-file); without one a sealed entry is an error.
int cmd_get(const std::string& path, const std::string& key, bool raw, bool pretty,
            const savekit::payload_sealer* sealer) {
  auto store = open_store(path, store_access::read);
  if (!store) return report(path, store.error());
  auto value = store->get_raw(key);
  if (!value) return report(path, value.error());
  warn_if_damaged(path, *store, "reading");
  if (value->type == savekit::value_type::sealed && !raw) {
    if (!sealer)
      return report(path + ": " + key,
                    savekit::error{savekit::errc::key_not_held, 0,
                                   "the entry is sealed: give the keys (--key-file), or `get --raw` for its bytes"});
    auto opened = store->open_sealed(key, *sealer);
    if (!opened) return report(path + ": " + key, opened.error());
    value = std::move(opened);
  }
  output out;
  if (raw) {
    out.write(value->bytes);
    return out.finish(ok);
  }
  using savekit::value_type;
  if (auto bad = undecodable(*value))
    return report(path + ": " + key,
                  savekit::error{bad->code(), bad->offset(),
                                 "the stored " + std::string(savekit::to_string(value->type)) + " does not decode (" +
                                     bad->message() + "); `get --raw` shows its bytes"});
  switch (value->type) {
    case value_type::string:
      if (valid_utf8(value->bytes)) {
        // On a terminal, control characters are shown escaped (a saved name could clear the
        // screen or retitle the window); piped, the text is as stored.
        out.line(::isatty(STDOUT_FILENO) ? terminal_safe(value->bytes, true, true) : value->bytes);
        break;
      }
      [[fallthrough]];
    case value_type::bytes:
      out.line(savekit::base64_encode(value->bytes));
      break;
    case value_type::integer:
      out.line(savekit::to_json(*savekit::from_msgpack<std::int64_t>(value->bytes)));
      break;
    case value_type::floating: {
      double d = *savekit::from_msgpack<double>(value->bytes);
      out.line(std::isnan(d) ? "NaN" : std::isinf(d) ? (d > 0 ? "Infinity" : "-Infinity") : savekit::to_json(d));
      break;
    }
    case value_type::json: {
      if (!pretty) {
        out.line(value->bytes);
        break;
      }
      auto packed = savekit::json_to_msgpack(value->bytes);
      if (!packed) return report_input(path + ": " + key, packed.error(), value->bytes, false);
      out.line(*savekit::msgpack_to_json(*packed, {.pretty = true}));
      break;
    }
    case value_type::msgpack:
    case value_type::msgpack_compact: {
      auto text = savekit::msgpack_to_json(value->bytes, {.pretty = pretty});
      if (!text) return report_input(path + ": " + key, text.error(), value->bytes, true);
      out.line(*text);
      break;
    }
    case value_type::sealed:  // opened above
    case value_type::end_of_known_types:
      break;
  }
  return out.finish(ok);
}

int cmd_set(const std::string& path, const std::string& key, const std::string& value, const std::string& type_name) {
  // A JSON value is stored as MessagePack (map form): compact, and `get` shows it as JSON.
  savekit::value_type type = type_name == "json" ? savekit::value_type::msgpack : *type_from_name(type_name);
  auto bytes = encode_value(type, value, false);
  if (!bytes) return report_input("value", bytes.error(), value, false);
  auto store = open_store(path, store_access::write);
  if (!store) return report(path, store.error());
  if (auto set = store->set_raw(key, type, *bytes); !set) return report(path, set.error());
  if (auto saved = store->save(); !saved) return report(path, saved.error());
  return ok;
}

int cmd_delete(const std::string& path, const std::string& key) {
  auto store = open_store(path, store_access::write_existing);  // a typo must not create a store
  if (!store) return report(path, store.error());
  if (auto deleted = store->delete_key(key); !deleted) return report(path, deleted.error());
  if (auto saved = store->save(); !saved) return report(path, saved.error());
  return ok;
}

// The value as an export document holds it: readable JSON when that is exact, else Base64.
template <class Entry>
void export_value(Entry& e, const savekit::stored_value& v) {
  e.type = std::string(savekit::to_string(v.type));
  if (auto text = exact_json(v))
    e.value = savekit::raw_json{*text};
  else
    e.base64 = savekit::base64_encode(v.bytes);
}

// sealer: also opens each sealed entry into "opened" (an entry that does not open fails the
// export, naming it); the sealed bytes stay the entry's value, so import restores them.
int cmd_export(const std::string& path, bool pretty, const savekit::payload_sealer* sealer) {
  auto store = open_store(path, store_access::read);
  if (!store) return report(path, store.error());
  exported_store doc{1, std::vector<exported_entry>{}};
  for (const std::string& key : store->keys()) {
    auto raw = store->get_raw(key);
    exported_entry e;
    name_key(e, key);
    export_value(e, *raw);
    if (sealer && raw->type == savekit::value_type::sealed) {
      auto opened = store->open_sealed(key, *sealer);
      if (!opened) return report(path + ": " + display_key(key), opened.error());
      export_value(e.opened.emplace(), *opened);
    }
    doc.entries->push_back(std::move(e));
  }
  output out;
  out.line(savekit::to_json(doc, {.pretty = pretty, .skip_null_members = true}));
  warn_if_damaged(path, *store, "exported");
  return out.finish(ok);
}

int cmd_import(const std::string& path, const std::string& file, bool replace) {
  std::string where = file.empty() || file == "-" ? "<stdin>" : file;
  auto input = read_input(file);
  if (!input) return report(where, input.error());
  auto doc = savekit::from_json<exported_store>(*input, {.error_on_unknown_keys = true});
  if (!doc) return report_input(where, doc.error(), *input, false);
  auto refuse = [&](const std::string& at, savekit::errc code, const std::string& what) {
    return report(at, savekit::error{code, 0, what});
  };
  if (!doc->savekit_export)
    return refuse(where, savekit::errc::missing_key, "not a savekit export (no \"savekit_export\")");
  if (*doc->savekit_export != 1) return refuse(where, savekit::errc::unsupported_version, "unknown export version");
  if (!doc->entries) return refuse(where, savekit::errc::missing_key, "no \"entries\"");
  // Every entry is checked before the store is touched: all of the document, or nothing.
  std::vector<std::pair<std::string, savekit::stored_value>> planned;
  for (std::size_t i = 0; i < doc->entries->size(); ++i) {
    const exported_entry& e = (*doc->entries)[i];
    std::string at = where + ": entry " + std::to_string(i);
    if (static_cast<bool>(e.key) == static_cast<bool>(e.key_base64))
      return refuse(at, savekit::errc::invalid_value, "an entry needs exactly one of key and key_base64");
    if (static_cast<bool>(e.value) == static_cast<bool>(e.base64))
      return refuse(at, savekit::errc::invalid_value, "an entry needs exactly one of value and base64");
    if (!e.type) return refuse(at, savekit::errc::missing_key, "an entry needs a type");
    auto type = type_from_name(*e.type);
    if (!type) return refuse(at, savekit::errc::invalid_value, "unknown type " + *e.type);
    std::string key;
    if (e.key) {
      key = *e.key;
    } else {
      auto k = savekit::base64_decode(*e.key_base64);
      if (!k) return report(at + ": key_base64", k.error());
      key = std::string(as_text(*k));
    }
    savekit::result<std::string> bytes = std::string{};
    if (e.base64) {
      auto b = savekit::base64_decode(*e.base64);
      if (!b) return report(at + ": base64", b.error());
      bytes = std::string(as_text(*b));
    } else {
      bytes = encode_value(*type, e.value->text, true);
    }
    if (!bytes) return report(at, bytes.error());
    planned.push_back({std::move(key), savekit::stored_value{*type, std::move(*bytes)}});
  }
  auto store = open_store(path, store_access::write);
  if (!store) return report(path, store.error());
  if (replace) store->delete_all();
  for (std::size_t i = 0; i < planned.size(); ++i) {
    const auto& [key, value] = planned[i];
    if (auto set = store->set_raw(key, value.type, value.bytes); !set)
      return report(where + ": entry " + std::to_string(i), set.error());  // nothing was saved
  }
  if (auto saved = store->save(); !saved) return report(path, saved.error());
  return ok;
}

// Sealed entries of the newest intact state: counted, and opened when there are keys.
void verify_seals(const std::string& path, const savekit::payload_sealer* sealer, verify_report& r) {
  auto store = open_store(path, store_access::read);
  if (!store) return;  // the checks above judged the file; nothing more to say of its entries
  for (const std::string& key : store->keys()) {
    auto raw = store->get_raw(key);
    if (!raw || raw->type != savekit::value_type::sealed) continue;
    ++r.sealed_entries;
    if (!sealer) continue;
    if (auto opened = store->open_sealed(key, *sealer); !opened)
      r.seals_failed.push_back(display_key(key) + ": " + opened.error().to_string());
  }
  r.seals = r.sealed_entries == 0 ? "none" : sealer ? "checked with the keys" : "not checked (no --key-file)";
}

int cmd_verify(const std::string& path, bool json, const savekit::payload_sealer* sealer) {
  auto check = savekit::check_store_file(path);
  if (!check) {
    if (check.error().code() == savekit::errc::locked) {
      std::fprintf(stderr,
                   "savekit: %s: in use: another process has the store open for writing; verify it when "
                   "that process has closed it\n",
                   terminal_safe(path, false).c_str());
      return in_use;
    }
    return report(path, check.error());
  }
  verdict found = check->newer_version                   ? verdicts::newer_format
                  : !check->header_ok                    ? verdicts::nothing_intact
                  : (check->torn_tail || check->damaged) ? verdicts::recoverable
                                                         : verdicts::intact;
  verify_report r{path,
                  std::string{found.word},
                  check->version,
                  check->file_bytes,
                  check->intact_bytes,
                  check->commits,
                  check->entries,
                  check->torn_tail,
                  check->damaged,
                  check->intact_records_after_damage,
                  check->problem,
                  0,
                  "none",
                  {}};
  if (check->header_ok && !check->newer_version) verify_seals(path, sealer, r);
  if (!r.seals_failed.empty()) {
    found = verdicts::tampered;
    r.verdict = found.word;
  }
  const int code = found.code;
  output out;
  if (json) {
    out.line(savekit::to_json(r));
    return out.finish(code);
  }
  out.line(terminal_safe(path, false) + ": " + r.verdict);
  if (code == newer_format) {
    out.line("  written by a newer savekit (" + check->problem + "); this version neither judges nor changes it");
    return out.finish(code);
  }
  if (!check->header_ok) {
    out.line("  " + check->problem);
    return out.finish(code);
  }
  out.line("  format version " + std::to_string(check->version) + ", " + std::to_string(check->file_bytes) +
           " bytes, " + std::to_string(check->commits) + " intact commits, " + std::to_string(check->entries) +
           " keys in the newest intact state");
  if (r.sealed_entries)
    out.line("  " + std::to_string(r.sealed_entries) + " sealed entries, " +
             (sealer ? std::to_string(r.sealed_entries - r.seals_failed.size()) + " of them opened with the keys"
                     : std::string{"their seals not checked (no --key-file)"}));
  for (const std::string& failed : r.seals_failed) out.line("  sealed entry " + terminal_safe(failed, false));
  if (check->torn_tail || check->damaged) {
    out.line("  " + check->problem);
    std::uint64_t lost = check->file_bytes - check->intact_bytes;
    out.line("  opening would keep the first " + std::to_string(check->intact_bytes) + " bytes and lose " +
             std::to_string(lost) + " (" +
             (check->damaged ? "a damaged commit and everything after it; a copy is kept as .damaged"
                             : "an interrupted last commit") +
             ")");
  }
  return out.finish(code);
}

}  // namespace

void setup_store_commands(CLI::App& app, int& exit_code) {
  struct options {
    std::string store, key, value, type = "string", file;
    bool raw = false, pretty = false, json = false, replace = false;
    key_options keys;
  };
  auto o = std::make_shared<options>();

  auto* list = app.add_subcommand("list", "List keys with their types and sizes");
  list->add_option("STORE", o->store, "store file")->required();
  list->add_flag("--json", o->json, "machine-readable output");
  list->callback([o, &exit_code] { exit_code = cmd_list(o->store, o->json); });

  auto* get = app.add_subcommand("get", "Print a value: objects as JSON, numbers and strings as such, bytes as Base64");
  get->add_option("STORE", o->store, "store file")->required();
  get->add_option("KEY", o->key, "key")->required();
  get->add_flag("--raw", o->raw, "write the stored bytes unchanged");
  get->add_flag("--pretty", o->pretty, "indent JSON");
  add_key_options(*get, o->keys, "keys that open a sealed entry");
  get->callback([o, &exit_code] {
    exit_code = with_sealer(o->keys, [&](const savekit::payload_sealer* sealer) {
      return cmd_get(o->store, o->key, o->raw, o->pretty, sealer);
    });
  });

  auto* set = app.add_subcommand("set", "Set a value and commit it");
  set->add_option("STORE", o->store, "store file (created if missing)")->required();
  set->add_option("KEY", o->key, "key")->required();
  set->add_option("VALUE", o->value, "value (bytes: Base64; json: a JSON document, stored as MessagePack)")->required();
  set->add_option("--type", o->type, one_of(settable_types()))->check(CLI::IsMember(settable_types()));
  set->callback([o, &exit_code] { exit_code = cmd_set(o->store, o->key, o->value, o->type); });

  auto* del = app.add_subcommand("delete", "Delete a key and commit");
  del->add_option("STORE", o->store, "store file")->required();
  del->add_option("KEY", o->key, "key")->required();
  del->callback([o, &exit_code] { exit_code = cmd_delete(o->store, o->key); });

  auto* exp = app.add_subcommand("export", "Write every entry as a JSON document (lossless: types and bytes kept)");
  exp->add_option("STORE", o->store, "store file")->required();
  exp->add_flag("--pretty", o->pretty, "indent");
  add_key_options(*exp, o->keys, "keys: each sealed entry is also written opened (\"opened\"; import keeps it sealed)");
  exp->callback([o, &exit_code] {
    exit_code = with_sealer(
        o->keys, [&](const savekit::payload_sealer* sealer) { return cmd_export(o->store, o->pretty, sealer); });
  });

  auto* imp = app.add_subcommand("import", "Set the entries of an export document and commit them");
  imp->add_option("STORE", o->store, "store file (created if missing)")->required();
  imp->add_option("FILE", o->file, "export document (default: standard input)");
  imp->add_flag("--replace", o->replace, "delete every existing entry first");
  imp->callback([o, &exit_code] { exit_code = cmd_import(o->store, o->file, o->replace); });

  auto* ver = app.add_subcommand(
      "verify",
      "Check every record (a store) or generation (a slots folder); say what is recoverable and what would "
      "be lost");
  ver->add_option("STORE", o->store, "store file or slots folder")->required();
  ver->add_flag("--json", o->json, "machine-readable output");
  add_key_options(*ver, o->keys, "keys: sealed entries and generations are opened, and a broken seal is exit 7");
  ver->callback([o, &exit_code] {
    auto sealer = sealer_of(o->keys);
    if (!sealer) {
      exit_code = report(o->keys.key_file, sealer.error());
      return;
    }
    struct stat st {};
    if (::stat(o->store.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      exit_code = cmd_verify_slots(o->store, o->json, *sealer);
    else
      exit_code = cmd_verify(o->store, o->json, sealer->get());
  });
}

}  // namespace savekit_cli
