#include "slots_commands.hpp"

#include <savekit/base64.hpp>
#include <savekit/prefs.hpp>
#include <savekit/slots.hpp>

#include <cstdio>
#include <ctime>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "cli_common.hpp"
#include "key_options.hpp"

// The JSON documents the slots commands print.
namespace savekit_cli {

struct listed_slot {
  std::string name;
  std::string title;
  std::string saved_at;  // RFC 3339, UTC
  std::uint64_t generation = 0;
  std::uint32_t schema_version = 0;
  std::string encoding;
  std::uint64_t bytes = 0;
  std::uint64_t thumbnail_bytes = 0;
  std::int64_t playtime_seconds = 0;
  double progress = 0;
  std::map<std::string, std::string> user;
  bool damaged = false;
  std::uint64_t damaged_newer = 0;
  std::optional<std::string> problem;
};

struct shown_generation {
  std::uint64_t generation = 0;
  std::string saved_at;
  std::uint32_t schema_version = 0;
  std::uint64_t bytes = 0;
  std::uint64_t restored_from = 0;
  std::string title;
  bool damaged = false;
  std::optional<std::string> problem;
};

struct shown_slot {
  listed_slot slot;
  std::vector<shown_generation> history;
  std::optional<savekit::raw_json> payload;  // the newest intact generation, as JSON
  std::optional<std::string> payload_problem;
};

struct verified_generation {
  std::uint64_t generation = 0;
  // intact, damaged, newer format, unreadable, sealed (not checked), tampered, not sealed
  // (with keys: a plain generation, which anyone can write, where sealed ones are expected)
  std::string verdict;
  std::optional<std::string> problem;
};

struct verified_slot {
  std::string name;
  std::string verdict;
  std::vector<verified_generation> generations;
};

struct verified_folder {
  std::string path;
  std::string verdict;
  std::vector<verified_slot> slots;
  std::uint64_t sealed_generations = 0;
  std::uint64_t seals_checked = 0;  // opened with the keys given
  std::string seals;                // none, checked with the keys, not checked (no --key-file)
};

}  // namespace savekit_cli

namespace savekit_cli {
namespace {

// As `savekit list` names the value type a prefs entry of that encoding is stored under.
std::string_view encoding_name(savekit::object_encoding e) {
  return savekit::to_string(savekit::detail::stored_type(e));
}

listed_slot listed(const savekit::slot_info& s) {
  listed_slot l;
  l.name = s.name;
  l.title = s.meta.title;
  const bool unread = s.damaged || !s.problem.empty();  // nothing of it could be read: no time, no version
  l.saved_at = unread ? "" : rfc3339(s.saved_at);
  l.generation = s.generation;
  l.schema_version = s.schema_version;
  l.encoding = unread ? "" : std::string{encoding_name(s.encoding)};
  l.bytes = s.bytes;
  l.thumbnail_bytes = s.thumbnail_bytes;
  l.playtime_seconds = s.meta.playtime.count();
  l.progress = s.meta.progress;
  l.user = s.meta.user;
  l.damaged = s.damaged;
  l.damaged_newer = s.damaged_newer;
  if (!s.problem.empty()) l.problem = s.problem;
  return l;
}

// Opens a folder that must exist and be a slots folder (one a slots object opened: it has
// the lock file), never creating anything.
savekit::result<savekit::slots> open_folder(const std::string& folder, bool read_only,
                                            std::shared_ptr<const savekit::payload_sealer> sealer = nullptr) {
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return savekit::error{savekit::errc::not_found, 0, "no folder " + folder};
  if (::access((folder + "/.savekit-slots.lock").c_str(), F_OK) != 0)
    return savekit::error{savekit::errc::invalid_path, 0, folder + " is not a slots folder (no .savekit-slots.lock)"};
  return savekit::slots::open(folder,
                              {.read_only = read_only, .create_if_missing = false, .sealer = std::move(sealer)});
}

// A payload as JSON text, checked: JSON is parsed and written again (a file edited by
// hand, its checksums recomputed, is text like any other), MessagePack transcoded.
// The game's own bytes (object_encoding::bytes) are a JSON string of their base64.
savekit::result<std::string> payload_as_json(const savekit::slots::payload& p) {
  if (p.encoding == savekit::object_encoding::bytes) return savekit::to_json(savekit::base64_encode(p.bytes));
  if (p.encoding == savekit::object_encoding::json) {
    auto bytes = savekit::json_to_msgpack(p.bytes);
    if (!bytes) return std::move(bytes).error();
    return savekit::msgpack_to_json(std::span<const std::byte>{*bytes});
  }
  auto bytes = std::as_bytes(std::span{p.bytes.data(), p.bytes.size()});
  return savekit::msgpack_to_json(bytes);
}

// JSON for standard output: on a terminal, control characters are escaped (a name, title
// or string in a save could otherwise move the cursor or forge lines).
std::string for_output(const std::string& json) {
  return ::isatty(STDOUT_FILENO) ? terminal_safe(json, true, false) : json;
}

}  // namespace

int cmd_slots_list(const std::string& folder, bool json) {
  auto s = open_folder(folder, true);
  if (!s) return report(folder, s.error());
  auto menu = s->list();
  if (!menu) return report(folder, menu.error());
  output out;
  if (json) {
    std::vector<listed_slot> all;
    for (const auto& slot : *menu) all.push_back(listed(slot));
    out.line(for_output(savekit::to_json(all, document_options)));
    return out.finish(ok);
  }
  out.line("SLOT                     TITLE                          SAVED (UTC)           GEN  SCHEMA  BYTES");
  for (const auto& slot : *menu) {
    listed_slot l = listed(slot);
    std::string note = slot.damaged ? "  damaged: " + slot.problem
                       : slot.fell_back()
                           ? "  fell back: " + std::to_string(slot.damaged_newer) + " newer generation(s) damaged"
                       : !slot.problem.empty() ? "  " + slot.problem
                                               : "";
    char numbers[64];
    std::snprintf(numbers, sizeof numbers, "%5llu  %6u  %llu", static_cast<unsigned long long>(l.generation),
                  l.schema_version, static_cast<unsigned long long>(l.bytes));
    auto padded = [](std::string text, std::size_t width) {
      std::size_t shown = 0;  // characters, not bytes
      for (unsigned char c : text) shown += (c & 0xC0) != 0x80;
      return text + std::string(shown < width ? width - shown : 1, ' ');
    };
    out.line(padded(display_key(l.name), 25) + padded(terminal_safe(l.title, false), 31) + padded(l.saved_at, 20) +
             numbers + terminal_safe(note, false));
  }
  return out.finish(ok);
}

int cmd_slots_show(const std::string& folder, const std::string& name, bool pretty,
                   std::shared_ptr<const savekit::payload_sealer> sealer) {
  auto s = open_folder(folder, true, std::move(sealer));
  if (!s) return report(folder, s.error());
  auto info = s->info(name);
  if (!info) return report(folder + ": " + name, info.error());
  shown_slot shown;
  shown.slot = listed(*info);
  auto history = s->history(name);
  if (!history) return report(folder + ": " + name, history.error());
  for (const auto& g : *history)
    shown.history.push_back({g.generation, g.damaged ? "" : rfc3339(g.saved_at), g.schema_version, g.bytes,
                             g.restored_from, g.meta.title, g.damaged,
                             g.problem.empty() ? std::nullopt : std::optional{g.problem}});
  auto payload = s->read_payload(name);
  if (payload) {
    auto text = payload_as_json(*payload);
    if (text)
      shown.payload = savekit::raw_json{std::move(*text)};
    else
      shown.payload_problem = text.error().to_string();
  } else {
    shown.payload_problem = payload.error().to_string();
  }
  output out;
  savekit::json_options options = document_options;
  options.pretty = pretty;
  out.line(for_output(savekit::to_json(shown, options)));
  return out.finish(shown.payload ? ok : failure);
}

int cmd_slots_restore(const std::string& folder, const std::string& name, std::uint64_t generation) {
  auto s = open_folder(folder, false);
  if (!s) return report(folder, s.error());
  if (auto restored = s->restore(name, generation); !restored) return report(folder + ": " + name, restored.error());
  return ok;
}

int cmd_verify_slots(const std::string& folder, bool json, std::shared_ptr<const savekit::payload_sealer> sealer) {
  const bool with_keys = sealer != nullptr;
  auto s = open_folder(folder, true, std::move(sealer));  // read-only: judges, changes nothing
  if (!s) return report(folder, s.error());
  auto menu = s->list();
  if (!menu) return report(folder, menu.error());
  verified_folder result{folder, "intact", {}, 0, 0, "none"};
  verdict folder_verdict = verdicts::intact;
  for (const auto& slot : *menu) {
    verified_slot v{slot.name, "intact", {}};
    bool any_intact = false, any_damaged = false, any_newer = false, any_tampered = false;
    // A slot listed with a problem (newer format, nothing intact, unreadable) is judged by
    // the menu; its files may not even name it.
    if (slot.damaged || !slot.problem.empty()) {
      const verdict found =
          slot.problem_code == savekit::errc::unsupported_version ? verdicts::newer_format : verdicts::nothing_intact;
      v.verdict = found.word;
      v.generations.push_back({slot.generation, v.verdict, slot.problem});
      folder_verdict = folder_verdict.worse_of(found);
      result.slots.push_back(std::move(v));
      continue;
    }
    auto history = s->history(slot.name);
    if (!history) return report(folder + ": " + slot.name, history.error());
    for (const auto& g : *history) {
      verified_generation checked{g.generation, "intact", std::nullopt};
      if (g.damaged) {
        checked = {g.generation, "damaged", g.problem};
      } else if (g.problem_code == savekit::errc::unsupported_version) {
        checked = {g.generation, "newer format", g.problem};
      } else if (auto read = s->read_generation(slot.name, g.generation); !read) {
        auto c = read.error().code();
        checked = {g.generation,
                   c == savekit::errc::damaged                     ? "damaged"
                   : c == savekit::errc::unsupported_version       ? "newer format"
                   : c == savekit::errc::tampered && !g.sealed     ? "not sealed"  // anyone could have written it
                   : c == savekit::errc::tampered                  ? "tampered"
                   : c == savekit::errc::key_not_held && with_keys ? "not opened"  // the keys given do not open it
                   : c == savekit::errc::key_not_held              ? "sealed"
                                                                   : "unreadable",
                   c == savekit::errc::key_not_held && !with_keys
                       ? "its checksums are intact; the seal itself is checked only with the keys (--key-file)"
                       : read.error().message()};
      } else if (read->encoding == savekit::object_encoding::bytes) {
        // The game's own format: its checksums (and seal) are all savekit can check.
      } else if (auto parsed = read->encoding == savekit::object_encoding::json
                                   ? savekit::document::from_json(read->bytes)
                                   : savekit::document::from_msgpack(read->bytes);
                 !parsed) {
        // Intact checksums over bytes that are not a well-formed document: written by
        // something else than savekit (a hand edit with the checksums recomputed).
        checked = {g.generation, "unreadable", "the payload is not well-formed: " + parsed.error().to_string()};
      }
      if (g.sealed) {
        ++result.sealed_generations;
        if (checked.verdict == "intact") ++result.seals_checked;
      }
      any_intact |= checked.verdict == "intact" || checked.verdict == "sealed";
      any_damaged |= checked.verdict == "damaged" || checked.verdict == "unreadable";
      any_newer |= checked.verdict == "newer format";
      any_tampered |=
          checked.verdict == "tampered" || checked.verdict == "not sealed" || checked.verdict == "not opened";
      v.generations.push_back(std::move(checked));
    }
    if (slot.damaged && v.generations.empty()) any_damaged = true;
    // A seal that fails means the save was edited, or copied from elsewhere: the slot does
    // not load (never falls back to an older generation), so that outranks all else.
    const verdict found = any_tampered  ? verdicts::tampered
                          : any_newer   ? verdicts::newer_format
                          : !any_intact ? verdicts::nothing_intact
                          : any_damaged ? verdicts::recoverable
                                        : verdicts::intact;
    v.verdict = found.word;
    folder_verdict = folder_verdict.worse_of(found);
    result.slots.push_back(std::move(v));
  }
  result.verdict = folder_verdict.word;
  const int code = folder_verdict.code;
  result.seals = result.sealed_generations == 0 ? "none"
                 : with_keys                    ? "checked with the keys"
                                                : "not checked (no --key-file)";
  output out;
  if (json) {
    out.line(for_output(savekit::to_json(result, document_options)));
    return out.finish(code);
  }
  out.line(terminal_safe(folder, false) + ": slots folder, " + std::to_string(result.slots.size()) +
           " slots: " + result.verdict);
  if (result.sealed_generations)
    out.line("  " + std::to_string(result.sealed_generations) + " sealed generations, " +
             (with_keys ? std::to_string(result.seals_checked) + " of them opened with the keys"
                        : std::string{"their seals not checked (no --key-file)"}));
  for (const auto& v : result.slots) {
    out.line("  " + display_key(v.name) + ": " + v.verdict);
    for (const auto& g : v.generations)
      if (g.verdict != "intact")
        out.line("    generation " + std::to_string(g.generation) + ": " + g.verdict + " — " +
                 terminal_safe(g.problem.value_or(""), false));
  }
  return out.finish(code);
}

void setup_slots_commands(CLI::App& app, int& exit_code) {
  struct options {
    std::string folder, slot;
    std::uint64_t generation = 0;
    bool json = false, pretty = false;
    key_options keys;
  };
  auto o = std::make_shared<options>();
  auto* slots = app.add_subcommand("slots", "Look into a slots folder (savekit/slots.hpp): list, show, restore");
  slots->require_subcommand(1);
  auto* list = slots->add_subcommand("list", "The load menu: every slot's newest save, newest first");
  list->add_option("DIR", o->folder, "slots folder")->required();
  list->add_flag("--json", o->json, "machine-readable output");
  list->callback([o, &exit_code] { exit_code = cmd_slots_list(o->folder, o->json); });
  auto* show = slots->add_subcommand("show", "A slot's metadata, history and payload, as JSON");
  show->add_option("DIR", o->folder, "slots folder")->required();
  show->add_option("SLOT", o->slot, "slot name")->required();
  show->add_flag("--pretty", o->pretty, "indent");
  add_key_options(*show, o->keys, "keys that open a sealed payload");
  show->callback([o, &exit_code] {
    auto sealer = sealer_of(o->keys);
    exit_code =
        sealer ? cmd_slots_show(o->folder, o->slot, o->pretty, *sealer) : report(o->keys.key_file, sealer.error());
  });
  auto* restore = slots->add_subcommand("restore", "Make a kept generation the slot's newest again");
  restore->add_option("DIR", o->folder, "slots folder")->required();
  restore->add_option("SLOT", o->slot, "slot name")->required();
  restore->add_option("GENERATION", o->generation, "generation (see `savekit slots show`)")->required();
  restore->callback([o, &exit_code] { exit_code = cmd_slots_restore(o->folder, o->slot, o->generation); });
}

}  // namespace savekit_cli
