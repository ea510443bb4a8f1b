// Values named by a path and a key or slot (value_sources.hpp): read for show, diff, edit and
// schema, and written back by edit.
#include "value_sources.hpp"

#include <savekit/file_backend.hpp>
#include <savekit/prefs.hpp>
#include <savekit/slots.hpp>
#if SAVEKIT_CLI_SEAL
#include <savekit/seal.hpp>
#endif

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "cli_common.hpp"
#include "cli_files.hpp"

namespace savekit_cli {
namespace {

using savekit::errc;
using savekit::error;
using savekit::result;

constexpr std::string_view store_magic{"SKPREFS\0", 8};
constexpr std::string_view slot_magic{"\x89SKSLOT\n", 8};

std::string_view type_word(savekit::value_type t) { return savekit::to_string(t); }

std::string sealed_header_of(std::string_view bytes) {
#if SAVEKIT_CLI_SEAL
  auto info = savekit::inspect_sealed(bytes);
  if (!info) return "a sealed save whose header does not read: " + info.error().message();
  const char* protection = info->protection == savekit::seal_protection::none  ? "none"
                           : info->protection == savekit::seal_protection::mac ? "MAC (authenticated)"
                                                                               : "AEAD (encrypted)";
  const char* compression = info->compression == savekit::seal_compression::none ? "none" : "zstd";
  return "sealed: format " + std::to_string(info->version) + ", protection " + protection + ", compression " +
         compression + ", key id " + std::to_string(info->key_id) +
         (info->dictionary_id ? ", dictionary " + std::to_string(info->dictionary_id) : std::string{}) + ", " +
         std::to_string(info->original_bytes) + " bytes sealed into " + std::to_string(info->sealed_bytes) +
         "; give --key-file to see inside";
#else
  (void)bytes;
  return "sealed; this savekit was built without savekit::seal";
#endif
}

// A store entry's stored bytes as an inspectable value.
result<opened_value> entry_value(savekit::stored_value stored, bool sealed) {
  using savekit::value_type;
  opened_value out;
  out.kind = source_kind::store_entry;
  out.stored_type = static_cast<std::uint8_t>(stored.type);
  out.sealed = sealed;
  out.description = "store entry (" + std::string{type_word(stored.type)} + (sealed ? ", sealed" : "") + ")";
  switch (stored.type) {
    case value_type::integer:
    case value_type::floating:
    case value_type::msgpack:
    case value_type::msgpack_compact:
      out.bytes = std::move(stored.bytes);
      return out;
    case value_type::json:
      out.bytes = std::move(stored.bytes);
      out.wire = savekit::inspect::wire::json;
      return out;
    case value_type::string:
    case value_type::bytes: {
      out.raw = true;
      if (stored.type == value_type::string)
        savekit::to_msgpack(stored.bytes, out.bytes);
      else
        savekit::to_msgpack(
            std::vector<std::byte>(reinterpret_cast<const std::byte*>(stored.bytes.data()),
                                   reinterpret_cast<const std::byte*>(stored.bytes.data()) + stored.bytes.size()),
            out.bytes);
      return out;
    }
    case value_type::sealed:
      out.sealed = true;
      out.sealed_header = sealed_header_of(stored.bytes);
      out.bytes = std::move(stored.bytes);
      return out;
    case value_type::end_of_known_types:
      break;
  }
  return error{errc::unsupported_version, 0, "an entry of a type this savekit does not know"};
}

result<savekit::prefs> open_store(const std::string& path, bool read_only) {
  savekit::file_backend_options options;
  options.read_only = read_only;
  options.create_if_missing = false;
  return savekit::prefs::open(savekit::make_file_backend(path, savekit::posix_file_system(), options));
}

result<savekit::slots> open_slots(const std::string& folder, bool read_only,
                                  std::shared_ptr<const savekit::payload_sealer> sealer) {
  if (::access((folder + "/.savekit-slots.lock").c_str(), F_OK) != 0)
    return error{errc::invalid_path, 0, folder + " is not a slots folder (no .savekit-slots.lock)"};
  return savekit::slots::open(folder,
                              {.read_only = read_only, .create_if_missing = false, .sealer = std::move(sealer)});
}

std::string_view encoding_word(savekit::object_encoding e) {
  switch (e) {
    case savekit::object_encoding::msgpack:
      return "msgpack";
    case savekit::object_encoding::msgpack_compact:
      return "msgpack, compact";
    case savekit::object_encoding::json:
      return "json";
    case savekit::object_encoding::bytes:
      return "the game's own bytes";
  }
  return "?";
}

result<opened_value> payload_value(savekit::slots::payload p, const std::string& name) {
  opened_value out;
  out.kind = source_kind::slot;
  out.encoding = static_cast<std::uint8_t>(p.encoding);
  out.schema_version = p.schema_version;
  out.generation = p.generation;
  out.sealed = p.sealed;
  out.description = "slot '" + name + "', generation " + std::to_string(p.generation) + " (" +
                    std::string{encoding_word(p.encoding)} + ", schema version " + std::to_string(p.schema_version) +
                    (p.sealed ? ", sealed" : "") + ")";
  if (p.encoding == savekit::object_encoding::json) out.wire = savekit::inspect::wire::json;
  if (p.encoding == savekit::object_encoding::bytes) {
    out.raw = true;
    savekit::to_msgpack(std::vector<std::byte>(reinterpret_cast<const std::byte*>(p.bytes.data()),
                                               reinterpret_cast<const std::byte*>(p.bytes.data()) + p.bytes.size()),
                        out.bytes);
    return out;
  }
  out.bytes = std::move(p.bytes);
  return out;
}

// A slot's payload, or its header when it is sealed and there are no keys.
result<opened_value> slot_value(savekit::slots& s, const std::string& name, std::optional<std::uint64_t> generation,
                                bool have_keys) {
  auto info = s.info(name);
  if (!info) return std::move(info).error();
  const std::uint64_t wanted = generation.value_or(info->generation);
  if (info->sealed && !have_keys && wanted == info->generation) {
    opened_value out;
    out.kind = source_kind::slot;
    out.sealed = true;
    out.generation = info->generation;
    out.schema_version = info->schema_version;
    out.sealed_header = "sealed (" + std::to_string(info->bytes) + " bytes); give --key-file to see inside";
    out.description = "slot '" + name + "', generation " + std::to_string(info->generation) + " (sealed)";
    return out;
  }
  auto p = generation ? s.read_generation(name, *generation) : s.read_payload(name);
  if (!p) return std::move(p).error();
  return payload_value(std::move(*p), name);
}

// A lone generation file: a copy in a fresh temporary folder is opened as a slots folder,
// so nothing is created or locked beside the file the user named.
result<opened_value> slot_file_value(const std::string& path, const value_source& source) {
  auto bytes = read_input(path);
  if (!bytes) return std::move(bytes).error();
  const char* tmp = std::getenv("TMPDIR");
  std::string folder = std::string{tmp && *tmp ? tmp : "/tmp"} + "/savekit-show-XXXXXX";
  if (!::mkdtemp(folder.data())) return io_failure("cannot make a temporary folder", errno);
  const std::string base = path.substr(path.find_last_of('/') + 1);
  result<opened_value> out = error{errc::not_found, 0, path + " holds no slot savekit can read"};
  if (savekit::status written = write_file(folder + "/" + base, *bytes); !written) {
    out = std::move(written).error();
  } else if (auto s = savekit::slots::open(folder, {.sealer = source.sealer}); !s) {
    out = std::move(s).error();
  } else if (auto menu = s->list(); !menu) {
    out = std::move(menu).error();
  } else if (!menu->empty()) {
    const auto& slot = menu->front();
    if (slot.damaged || !slot.problem.empty())
      out = error{errc::damaged, 0, path + ": " + (slot.problem.empty() ? "damaged" : slot.problem)};
    else
      out = slot_value(*s, slot.name, std::nullopt, source.sealer != nullptr);
    if (out) out->lone_file = true;
  }
  // The copy and the folder savekit made go; nothing else was in it.
  std::error_code removed;
  std::filesystem::remove_all(folder, removed);
  if (removed) warn(folder, "a temporary folder could not be removed: " + removed.message());
  return out;
}

}  // namespace

result<opened_value> open_value(const value_source& source) {
  auto kind = kind_of(source.path);
  if (!kind) return std::move(kind).error();
  switch (*kind) {
    case file_kind::folder: {
      if (source.key.empty()) return error{errc::invalid_value, 0, "name a slot in the folder"};
      auto s = open_slots(source.path, true, source.sealer);
      if (!s) return std::move(s).error();
      return slot_value(*s, source.key, source.generation, source.sealer != nullptr);
    }
    case file_kind::store: {
      if (source.key.empty()) return error{errc::invalid_value, 0, "name a key in the store"};
      auto store = open_store(source.path, true);
      if (!store) return std::move(store).error();
      auto stored = store->get_raw(source.key);
      if (!stored) return std::move(stored).error();
      const std::string as_stored = stored->bytes;
      result<opened_value> out = error{};
      if (stored->type == savekit::value_type::sealed && source.sealer) {
        auto opened = store->open_sealed(source.key, *source.sealer);
        if (!opened) return std::move(opened).error();
        out = entry_value(std::move(*opened), true);
      } else {
        out = entry_value(std::move(*stored), false);
      }
      if (out) out->as_stored = as_stored;
      return out;
    }
    case file_kind::slot_file:
      return slot_file_value(source.path, source);
    case file_kind::other: {
      if (!source.key.empty())
        return error{errc::invalid_value, 0, source.path + " is neither a store nor a slots folder"};
      auto bytes = read_input(source.path);
      if (!bytes) return std::move(bytes).error();
      opened_value out;
      out.bytes = std::move(*bytes);
#if SAVEKIT_CLI_SEAL
      if (savekit::looks_sealed(out.bytes)) {
        out.sealed = true;
        out.sealed_header = sealed_header_of(out.bytes);
        out.description = "sealed file";
        return out;
      }
#endif
      const bool json = static_cast<bool>(savekit::inspect::read_json(out.bytes));  // else MessagePack
      out.wire = json ? savekit::inspect::wire::json : savekit::inspect::wire::msgpack;
      out.description = json ? "JSON file" : "MessagePack file";
      return out;
    }
  }
  return error{errc::invalid_value, 0, "unreachable"};
}

result<file_kind> kind_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return io_failure("cannot open " + path, errno);
  if (S_ISDIR(st.st_mode)) return file_kind::folder;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_failure("cannot open " + path, errno);
  char head[8];
  std::size_t have = 0;
  while (have < sizeof head) {
    const ssize_t n = ::read(fd, head + have, sizeof head - have);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    have += static_cast<std::size_t>(n);
  }
  ::close(fd);
  const std::string_view start{head, have};
  if (start == store_magic) return file_kind::store;
  if (start == slot_magic) return file_kind::slot_file;
  return file_kind::other;
}

result<std::optional<std::string>> describe_container(const std::string& path) {
  auto kind = kind_of(path);
  if (!kind) return std::move(kind).error();
  if (*kind == file_kind::store) {
    auto store = open_store(path, true);
    if (!store) return std::move(store).error();
    std::string out = "KEY                      TYPE             BYTES  VALUE\n";
    for (const std::string& key : store->keys()) {
      auto stored = store->get_raw(key);
      if (!stored) continue;
      std::string preview;
      if (auto value = entry_value(*stored, false); value && !value->sealed) {
        auto tree = value->wire == savekit::inspect::wire::json ? savekit::inspect::read_json(value->bytes)
                                                                : savekit::inspect::read_msgpack(value->bytes);
        if (tree) {
          preview =
              savekit::inspect::render(*tree, {.offsets = false, .max_bytes = 8, .max_string = 40, .children = false});
          preview = preview.substr(0, preview.find('\n'));
        }
      } else {
        preview = "(sealed)";
      }
      std::string name = display_key(key);
      std::string type{type_word(stored->type)};
      name.resize(std::max<std::size_t>(name.size() + 1, 25), ' ');
      type.resize(std::max<std::size_t>(type.size() + 1, 15), ' ');
      std::string bytes = std::to_string(stored->bytes.size());
      out += name + type + std::string(bytes.size() < 7 ? 7 - bytes.size() : 0, ' ') + bytes + "  " +
             terminal_safe(preview, false) + "\n";
    }
    return std::optional<std::string>{out};
  }
  if (*kind == file_kind::folder) {
    auto s = open_slots(path, true, nullptr);
    if (!s) return std::move(s).error();
    auto menu = s->list();
    if (!menu) return std::move(menu).error();
    std::string out = "SLOT                     GEN  ENCODING          BYTES  TITLE\n";
    for (const auto& slot : *menu) {
      std::string name = display_key(slot.name);
      name.resize(std::max<std::size_t>(name.size() + 1, 25), ' ');
      std::string gen = std::to_string(slot.generation);
      std::string encoding = slot.sealed ? "sealed" : std::string{encoding_word(slot.encoding)};
      encoding.resize(std::max<std::size_t>(encoding.size() + 1, 16), ' ');
      std::string bytes = std::to_string(slot.bytes);
      out += name + std::string(gen.size() < 3 ? 3 - gen.size() : 0, ' ') + gen + "  " + encoding +
             std::string(bytes.size() < 7 ? 7 - bytes.size() : 0, ' ') + bytes + "  " +
             terminal_safe(slot.meta.title, false) +
             (slot.damaged ? "  damaged: " + terminal_safe(slot.problem, false) : std::string{}) + "\n";
    }
    return std::optional<std::string>{out};
  }
  return std::optional<std::string>{};
}

result<std::string> stored_form(const opened_value& opened, const std::string& new_bytes) {
  // A raw value (a string or bytes entry, the game's own slot bytes) is stored as itself, so
  // it must stay what it was: null or a map would be stored as nothing.
  std::string payload = new_bytes;
  if (opened.raw) {
    auto tree = savekit::inspect::read_msgpack(new_bytes);
    if (!tree) return std::move(tree).error();
    auto was = savekit::inspect::read_msgpack(opened.bytes);
    if (!was || tree->kind != was->kind)
      return error{errc::invalid_value, 0,
                   std::string{"this value is stored as "} +
                       (was && was->kind == savekit::inspect::kind::string ? "text" : "bytes") + ", so it stays " +
                       (was && was->kind == savekit::inspect::kind::string ? "a string" : "bytes (Base64)")};
    payload = tree->text;
  }
  return payload;
}

result<std::string> write_value(const value_source& source, const opened_value& opened, const std::string& new_bytes) {
  if (opened.lone_file)
    return error{errc::invalid_value, 0,
                 "a generation file on its own is shown, not edited: edit the slots folder it is in"};
  auto stored = stored_form(opened, new_bytes);
  if (!stored) return std::move(stored).error();
  const std::string& payload = *stored;
  switch (opened.kind) {
    case source_kind::file:
      if (savekit::status ok = write_file(source.path, payload); !ok) return std::move(ok).error();
      return std::string{"the file"};
    case source_kind::store_entry: {
      auto store = open_store(source.path, false);
      if (!store) return std::move(store).error();
      if (auto now = store->get_raw(source.key); !now || now->bytes != opened.as_stored)
        return error{errc::already_exists, 0,
                     "the entry changed (or went) since it was opened — the game saved meanwhile; open it again"};
      const auto type = static_cast<savekit::value_type>(opened.stored_type);
      savekit::status set = opened.sealed
                                ? (source.sealer ? store->set_sealed(source.key, type, payload, *source.sealer)
                                                 : savekit::status{error{errc::key_not_held, 0, "sealed"}})
                                : store->set_raw(source.key, type, payload);
      if (!set) return std::move(set).error();
      if (savekit::status saved = store->save(); !saved) return std::move(saved).error();
      return std::string{"a new commit"};
    }
    case source_kind::slot: {
      auto s = open_slots(source.path, false, source.sealer);
      if (!s) return std::move(s).error();
      auto info = s->info(source.key);
      if (!info) return std::move(info).error();
      if (info->generation != opened.generation)
        return error{errc::already_exists, 0,
                     "the slot has a newer generation (" + std::to_string(info->generation) +
                         ") than the one edited (" + std::to_string(opened.generation) +
                         ") — the game saved meanwhile; open it again"};
      savekit::slot_meta meta = info->meta;
      if (info->thumbnail_bytes != 0) {
        auto thumbnail = s->thumbnail(source.key);
        if (!thumbnail) return std::move(thumbnail).error();
        meta.thumbnail = std::move(*thumbnail);
      }
      savekit::status written =
          s->write_bytes(source.key, payload, static_cast<savekit::object_encoding>(opened.encoding),
                         std::max<std::uint32_t>(opened.schema_version, 1), meta, {.sealed = opened.sealed});
      if (!written) return std::move(written).error();
      if (savekit::status flushed = s->flush(); !flushed) return std::move(flushed).error();
      auto now = s->info(source.key);
      return "generation " + std::to_string(now ? now->generation : 0);
    }
  }
  return error{errc::invalid_value, 0, "unreachable"};
}

}  // namespace savekit_cli
