// savekit — look into, check, edit and convert save stores and save files.
//
//   savekit list STORE                 keys, types, sizes
//   savekit get STORE KEY [--raw]      a value: objects as JSON, bytes as Base64
//   savekit set STORE KEY VALUE --type int|float|string|bytes|json
//   savekit delete STORE KEY
//   savekit export STORE > dump.json   every entry, type tags and bytes included
//   savekit import STORE < dump.json   the reverse: a lossless round trip
//   savekit verify STORE               checksums, what is recoverable, what would be lost
//   savekit convert --from json|msgpack|base64 --to json|msgpack|base64 [FILE]
//
// Exit codes: 0 success; 1 failure (I/O, bad input, missing key); 2 usage; 3 the store is
// locked by another process; 4 verify found damage that opening would repair (something is
// lost); 5 verify found nothing intact (or a newer format).
#include <savekit/prefs.hpp>
#include <savekit/savekit.hpp>

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

enum exit_code { ok = 0, failure = 1, usage = 2, locked = 3, recoverable = 4, nothing_intact = 5 };

int report(const std::string& where, const savekit::error& e) {
  std::fprintf(stderr, "savekit: %s: %s\n", where.c_str(), e.to_string().c_str());
  return e.code() == savekit::errc::locked ? locked : failure;
}

// A codec error in an input: the offset and a caret under it.
int report_input(const std::string& where, const savekit::error& e, std::string_view input, bool binary) {
  std::fprintf(stderr, "savekit: %s: %s", where.c_str(),
               (binary ? savekit::format_binary_error(e, input) : savekit::format_error(e, input)).c_str());
  return failure;
}

std::string read_all(std::istream& in) { return std::string(std::istreambuf_iterator<char>(in), {}); }

std::optional<std::string> read_input(const std::string& file) {
  if (file.empty() || file == "-") return read_all(std::cin);
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  return read_all(in);
}

void write_out(std::string_view bytes) { std::fwrite(bytes.data(), 1, bytes.size(), stdout); }

std::string_view as_text(const std::vector<std::byte>& b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

bool valid_utf8(std::string_view s) { return savekit::detail::find_invalid_utf8(s.data(), s.size()) == s.size(); }

std::optional<savekit::value_type> type_from_name(std::string_view name) {
  for (auto t = static_cast<int>(savekit::value_type::integer); savekit::is_known(static_cast<savekit::value_type>(t));
       ++t) {
    auto type = static_cast<savekit::value_type>(t);
    if (savekit::to_string(type) == name) return type;
  }
  return std::nullopt;
}

savekit::result<savekit::prefs> open_store(const std::string& path, bool read_only) {
  savekit::file_backend_options options;
  options.read_only = read_only;
  return savekit::prefs::open(savekit::make_file_backend(path, savekit::posix_file_system(), options));
}

// ---- readable forms of stored values -------------------------------------------------------

// The value as JSON text when that is exact; nullopt when only the raw bytes are (NaN, a
// string that is not UTF-8, MessagePack that JSON cannot hold exactly...).
std::optional<std::string> exact_json(const savekit::stored_value& v, bool pretty) {
  using savekit::value_type;
  switch (v.type) {
    case value_type::integer: {
      auto n = savekit::from_msgpack<std::int64_t>(v.bytes);
      if (!n) return std::nullopt;
      return savekit::to_json(*n);
    }
    case value_type::floating: {
      auto d = savekit::from_msgpack<double>(v.bytes);
      if (!d || !std::isfinite(*d)) return std::nullopt;
      return savekit::to_json(*d);
    }
    case value_type::string:
      if (!valid_utf8(v.bytes)) return std::nullopt;
      return savekit::to_json(v.bytes);
    case value_type::bytes:
      return std::nullopt;
    case value_type::json:
      if (!savekit::json_to_msgpack(v.bytes)) return std::nullopt;
      return v.bytes;
    case value_type::msgpack:
    case value_type::msgpack_compact: {
      auto text = savekit::msgpack_to_json(v.bytes, {.pretty = pretty});
      if (!text) return std::nullopt;
      auto back = savekit::json_to_msgpack(*text);
      if (!back || as_text(*back) != v.bytes) return std::nullopt;  // not exact: e.g. float32, bin
      return *text;
    }
    case value_type::end_of_known_types:
      break;
  }
  return std::nullopt;
}

// ---- the export document ------------------------------------------------------------------

struct exported_entry {
  std::optional<std::string> key;         // when the key is UTF-8
  std::optional<std::string> key_base64;  // otherwise
  std::string type;
  std::optional<savekit::raw_json> value;  // the readable form, when exact
  std::optional<std::string> base64;       // otherwise the stored bytes
};

struct exported_store {
  int savekit_export = 1;
  std::vector<exported_entry> entries;
};

// ---- commands ------------------------------------------------------------------------------

int cmd_list(const std::string& path, bool json) {
  auto store = open_store(path, true);
  if (!store) return report(path, store.error());
  if (json) std::printf("[");
  bool first = true;
  for (const std::string& key : store->keys()) {
    auto raw = store->get_raw(key);
    if (json) {
      std::printf("%s{\"key\":%s,\"type\":\"%s\",\"bytes\":%zu}", first ? "" : ",",
                  savekit::to_json(valid_utf8(key) ? key : savekit::base64_encode(key)).c_str(),
                  std::string(savekit::to_string(raw->type)).c_str(), raw->bytes.size());
    } else {
      std::printf("%-32s %-16s %10zu bytes\n", key.c_str(), std::string(savekit::to_string(raw->type)).c_str(),
                  raw->bytes.size());
    }
    first = false;
  }
  if (json) std::printf("]\n");
  if (store->recovery().recovered)
    std::fprintf(stderr, "savekit: %s: warning: damaged; showing the newest intact state (%s); run `savekit verify`\n",
                 path.c_str(), store->recovery().detail.c_str());
  return ok;
}

int cmd_get(const std::string& path, const std::string& key, bool raw, bool pretty) {
  auto store = open_store(path, true);
  if (!store) return report(path, store.error());
  auto value = store->get_raw(key);
  if (!value) return report(path, value.error());
  if (raw) {
    write_out(value->bytes);
    return ok;
  }
  using savekit::value_type;
  if (value->type == value_type::string && valid_utf8(value->bytes)) {
    write_out(value->bytes);
    std::printf("\n");
    return ok;
  }
  if (value->type == value_type::bytes || value->type == value_type::string) {
    std::printf("%s\n", savekit::base64_encode(value->bytes).c_str());
    return ok;
  }
  if (value->type == value_type::msgpack || value->type == value_type::msgpack_compact) {
    auto text = savekit::msgpack_to_json(value->bytes, {.pretty = pretty});
    if (!text) return report_input(path + ": " + key, text.error(), value->bytes, true);
    std::printf("%s\n", text->c_str());
    return ok;
  }
  if (value->type == value_type::json && pretty) {
    auto packed = savekit::json_to_msgpack(value->bytes);
    if (!packed) return report_input(path + ": " + key, packed.error(), value->bytes, false);
    std::printf("%s\n", savekit::msgpack_to_json(*packed, {.pretty = true})->c_str());
    return ok;
  }
  auto text = exact_json(*value, pretty);
  std::printf("%s\n", text ? text->c_str() : savekit::base64_encode(value->bytes).c_str());
  return ok;
}

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

int cmd_set(const std::string& path, const std::string& key, const std::string& value, const std::string& type_name) {
  // A JSON value is stored as MessagePack (map form): compact, and `get` shows it as JSON.
  savekit::value_type type = type_name == "json" ? savekit::value_type::msgpack : *type_from_name(type_name);
  auto bytes = encode_value(type, value, false);
  if (!bytes) return report_input("value", bytes.error(), value, false);
  auto store = open_store(path, false);
  if (!store) return report(path, store.error());
  if (auto set = store->set_raw(key, type, *bytes); !set) return report(path, set.error());
  if (auto saved = store->save(); !saved) return report(path, saved.error());
  return ok;
}

int cmd_delete(const std::string& path, const std::string& key) {
  auto store = open_store(path, false);
  if (!store) return report(path, store.error());
  if (auto deleted = store->delete_key(key); !deleted) return report(path, deleted.error());
  if (auto saved = store->save(); !saved) return report(path, saved.error());
  return ok;
}

int cmd_export(const std::string& path, bool pretty) {
  auto store = open_store(path, true);
  if (!store) return report(path, store.error());
  exported_store doc;
  for (const std::string& key : store->keys()) {
    auto raw = store->get_raw(key);
    exported_entry e;
    if (valid_utf8(key))
      e.key = key;
    else
      e.key_base64 = savekit::base64_encode(key);
    e.type = std::string(savekit::to_string(raw->type));
    if (auto text = exact_json(*raw, false))
      e.value = savekit::raw_json{*text};
    else
      e.base64 = savekit::base64_encode(raw->bytes);
    doc.entries.push_back(std::move(e));
  }
  std::printf("%s\n", savekit::to_json(doc, {.pretty = pretty, .skip_null_members = true}).c_str());
  if (store->recovery().recovered)
    std::fprintf(stderr, "savekit: %s: warning: damaged; exported the newest intact state (%s)\n", path.c_str(),
                 store->recovery().detail.c_str());
  return ok;
}

int cmd_import(const std::string& path, const std::string& file, bool replace) {
  auto input = read_input(file);
  std::string where = file.empty() || file == "-" ? "<stdin>" : file;
  if (!input) return report(where, savekit::error{savekit::errc::io_error, 0, "cannot read the file"});
  auto doc = savekit::from_json<exported_store>(*input, {.error_on_unknown_keys = true});
  if (!doc) return report_input(where, doc.error(), *input, false);
  if (doc->savekit_export != 1)
    return report(where, savekit::error{savekit::errc::unsupported_version, 0, "unknown export version"});
  auto store = open_store(path, false);
  if (!store) return report(path, store.error());
  if (replace) store->delete_all();
  for (std::size_t i = 0; i < doc->entries.size(); ++i) {
    const exported_entry& e = doc->entries[i];
    std::string at = where + ": entry " + std::to_string(i);
    auto type = type_from_name(e.type);
    if (!type) return report(at, savekit::error{savekit::errc::invalid_value, 0, "unknown type " + e.type});
    std::string key;
    if (e.key)
      key = *e.key;
    else if (e.key_base64) {
      auto k = savekit::base64_decode(*e.key_base64);
      if (!k) return report(at, k.error());
      key = std::string(as_text(*k));
    } else {
      return report(at, savekit::error{savekit::errc::missing_key, 0, "an entry needs key or key_base64"});
    }
    savekit::result<std::string> bytes = std::string{};
    if (e.base64) {
      auto b = savekit::base64_decode(*e.base64);
      if (!b) return report(at, b.error());
      bytes = std::string(as_text(*b));
    } else if (e.value) {
      bytes = encode_value(*type, e.value->text, true);
    } else {
      return report(at, savekit::error{savekit::errc::missing_key, 0, "an entry needs value or base64"});
    }
    if (!bytes) return report(at, bytes.error());
    if (auto set = store->set_raw(key, *type, *bytes); !set) return report(at, set.error());
  }
  if (auto saved = store->save(); !saved) return report(path, saved.error());
  return ok;
}

int cmd_verify(const std::string& path, bool json) {
  auto check = savekit::check_store_file(path);
  if (!check) return report(path, check.error());
  int code = !check->header_ok ? nothing_intact : (check->torn_tail || check->damaged) ? recoverable : ok;
  const char* verdict = code == ok ? "intact" : code == recoverable ? "recoverable" : "nothing intact";
  std::uint64_t lost = check->file_bytes - check->intact_bytes;
  if (json) {
    std::printf(
        "{\"path\":%s,\"verdict\":\"%s\",\"version\":%u,\"file_bytes\":%llu,\"intact_bytes\":%llu,"
        "\"commits\":%llu,\"entries\":%llu,\"torn_tail\":%s,\"damaged\":%s,\"problem\":%s}\n",
        savekit::to_json(path).c_str(), verdict, check->version, static_cast<unsigned long long>(check->file_bytes),
        static_cast<unsigned long long>(check->intact_bytes), static_cast<unsigned long long>(check->commits),
        static_cast<unsigned long long>(check->entries), check->torn_tail ? "true" : "false",
        check->damaged ? "true" : "false", savekit::to_json(check->problem).c_str());
    return code;
  }
  std::printf("%s: %s\n", path.c_str(), verdict);
  if (!check->header_ok) {
    std::printf("  %s\n", check->problem.c_str());
    return code;
  }
  std::printf("  format version %u, %llu bytes, %llu intact commits, %llu keys in the newest intact state\n",
              check->version, static_cast<unsigned long long>(check->file_bytes),
              static_cast<unsigned long long>(check->commits), static_cast<unsigned long long>(check->entries));
  if (code == recoverable) {
    std::printf("  %s\n", check->problem.c_str());
    std::printf("  opening would keep the first %llu bytes and lose %llu (%s)\n",
                static_cast<unsigned long long>(check->intact_bytes), static_cast<unsigned long long>(lost),
                check->damaged ? "a damaged commit and everything after it; a copy is kept as .damaged"
                               : "an interrupted last commit");
  }
  return code;
}

int cmd_convert(const std::string& from, const std::string& to, const std::string& file, const std::string& output,
                bool pretty) {
  auto input = read_input(file);
  std::string where = file.empty() || file == "-" ? "<stdin>" : file;
  if (!input) return report(where, savekit::error{savekit::errc::io_error, 0, "cannot read the file"});
  // Everything goes through MessagePack bytes.
  std::vector<std::byte> packed;
  if (from == "json") {
    auto p = savekit::json_to_msgpack(*input);
    if (!p) return report_input(where, p.error(), *input, false);
    packed = std::move(*p);
  } else if (from == "base64") {
    std::string_view text = *input;
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
    auto p = savekit::base64_decode(text);
    if (!p) return report_input(where, p.error(), text, false);
    packed = std::move(*p);
  } else {
    const auto* data = reinterpret_cast<const std::byte*>(input->data());
    packed.assign(data, data + input->size());
  }
  // Check the MessagePack whatever the target, with JSON as the witness.
  auto json = savekit::msgpack_to_json(packed, {.pretty = pretty});
  if (!json) return report_input(where, json.error(), as_text(packed), true);
  std::string result;
  if (to == "json")
    result = *json + "\n";
  else if (to == "base64")
    result = savekit::base64_encode(packed) + "\n";
  else
    result = std::string(as_text(packed));
  if (output.empty() || output == "-") {
    write_out(result);
    return ok;
  }
  std::ofstream out(output, std::ios::binary);
  out << result;
  if (!out) return report(output, savekit::error{savekit::errc::io_error, 0, "cannot write the file"});
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"savekit: look into, check, edit and convert save stores and save files"};
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 success, 1 failure, 2 usage, 3 store locked, 4 verify: recoverable damage, "
      "5 verify: nothing intact.");
  std::string store, key, value, type = "string", from, to, file, output;
  bool raw = false, pretty = false, json = false, replace = false;

  auto* list = app.add_subcommand("list", "List keys with their types and sizes");
  list->add_option("STORE", store, "store file")->required();
  list->add_flag("--json", json, "machine-readable output");

  auto* get = app.add_subcommand("get", "Print a value: objects as JSON, numbers and strings as such, bytes as Base64");
  get->add_option("STORE", store, "store file")->required();
  get->add_option("KEY", key, "key")->required();
  get->add_flag("--raw", raw, "write the stored bytes unchanged");
  get->add_flag("--pretty", pretty, "indent JSON");

  auto* set = app.add_subcommand("set", "Set a value and commit it");
  set->add_option("STORE", store, "store file (created if missing)")->required();
  set->add_option("KEY", key, "key")->required();
  set->add_option("VALUE", value, "value (bytes: Base64; json: a JSON document, stored as MessagePack)")->required();
  set->add_option("--type", type, "int|float|string|bytes|json")
      ->check(CLI::IsMember({"int", "float", "string", "bytes", "json"}));

  auto* del = app.add_subcommand("delete", "Delete a key and commit");
  del->add_option("STORE", store, "store file")->required();
  del->add_option("KEY", key, "key")->required();

  auto* exp = app.add_subcommand("export", "Write every entry as a JSON document (lossless: types and bytes kept)");
  exp->add_option("STORE", store, "store file")->required();
  exp->add_flag("--pretty", pretty, "indent");

  auto* imp = app.add_subcommand("import", "Set the entries of an export document and commit them");
  imp->add_option("STORE", store, "store file (created if missing)")->required();
  imp->add_option("FILE", file, "export document (default: standard input)");
  imp->add_flag("--replace", replace, "delete every existing entry first");

  auto* ver = app.add_subcommand("verify", "Check every record; say what is recoverable and what would be lost");
  ver->add_option("STORE", store, "store file")->required();
  ver->add_flag("--json", json, "machine-readable output");

  auto* conv = app.add_subcommand("convert", "Convert a save between JSON, MessagePack and Base64 (of MessagePack)");
  conv->add_option("--from", from, "json|msgpack|base64")
      ->required()
      ->check(CLI::IsMember({"json", "msgpack", "base64"}));
  conv->add_option("--to", to, "json|msgpack|base64")->required()->check(CLI::IsMember({"json", "msgpack", "base64"}));
  conv->add_option("FILE", file, "input (default: standard input)");
  conv->add_option("-o,--output", output, "output file (default: standard output)");
  conv->add_flag("--pretty", pretty, "indent JSON output");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? ok : usage;
  }
  if (*list) return cmd_list(store, json);
  if (*get) return cmd_get(store, key, raw, pretty);
  if (*set) return cmd_set(store, key, value, type);
  if (*del) return cmd_delete(store, key);
  if (*exp) return cmd_export(store, pretty);
  if (*imp) return cmd_import(store, file, replace);
  if (*ver) return cmd_verify(store, json);
  if (*conv) return cmd_convert(from, to, file, output, pretty);
  return usage;
}
