// show, diff, edit and schema (inspect_commands.hpp).
#include "inspect_commands.hpp"

#include <savekit/inspect_diff.hpp>
#include <savekit/inspect_edit.hpp>
#include <savekit/schema_check.hpp>
#include <savekit/slots.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "cli_files.hpp"
#include "key_options.hpp"
#include "value_sources.hpp"

namespace savekit_cli {
namespace {

using savekit::inspect::node;

// ---- colours, on a terminal only ----------------------------------------------------------

struct palette {
  bool on = false;
  std::string paint(std::string_view code, std::string_view text) const {
    if (!on) return std::string{text};
    return "\x1b[" + std::string{code} + "m" + std::string{text} + "\x1b[0m";
  }
};

palette palette_for_stdout() { return {::isatty(STDOUT_FILENO) == 1 && std::getenv("NO_COLOR") == nullptr}; }

// One line of inspect::render, coloured: its label bold, its wire format cyan, its offset dim.
std::string coloured_line(std::string_view line, const palette& p) {
  if (!p.on) return std::string{line};
  std::size_t i = line.find_first_not_of(' ');
  if (i == std::string_view::npos) return std::string{line};
  std::string out{line.substr(0, i)};
  std::size_t label_end = std::string_view::npos;
  if (line[i] == '"') {
    for (std::size_t k = i + 1; k < line.size(); ++k) {
      if (line[k] == '\\') {
        ++k;
      } else if (line[k] == '"') {
        label_end = k + 1;
        break;
      }
    }
  } else if (line[i] == '[' || line[i] == '(') {
    label_end = line.find(line[i] == '[' ? "]: " : "): ", i);
    if (label_end != std::string_view::npos) ++label_end;
  }
  if (label_end != std::string_view::npos && line.substr(label_end, 2) == ": ") {
    out += p.paint("1", line.substr(i, label_end - i)) + ": ";
    i = label_end + 2;
  }
  const std::size_t format_end = line.find(' ', i);
  std::string_view rest = line.substr(i);
  std::string_view format = rest.substr(0, format_end == std::string_view::npos ? rest.size() : format_end - i);
  // The words of a format ("positive fixint") up to the value.
  if (format == "positive" || format == "negative") {
    const std::size_t second = line.find(' ', format_end + 1);
    format = line.substr(i, (second == std::string_view::npos ? line.size() : second) - i);
  }
  out += p.paint("36", format);
  rest = line.substr(i + format.size());
  const std::size_t at = rest.rfind("  @");
  if (at != std::string_view::npos) {
    out += std::string{rest.substr(0, at)} + p.paint("2", rest.substr(at));
  } else {
    out += std::string{rest};
  }
  return out;
}

// ---- a tree as JSON, for machines ------------------------------------------------------------

void node_json(std::string& out, const node& n) {
  out += "{\"kind\":";
  static constexpr const char* kinds[] = {"null",  "boolean", "integer", "float", "string",
                                          "bytes", "array",   "map",     "ext"};
  out += savekit::to_json(std::string{kinds[static_cast<int>(n.kind)]});
  out += ",\"format\":" + savekit::to_json(std::string{n.format});
  out += ",\"offset\":" + std::to_string(n.offset) + ",\"size\":" + std::to_string(n.size);
  switch (n.kind) {
    case savekit::inspect::kind::null:
      break;
    case savekit::inspect::kind::boolean:
    case savekit::inspect::kind::integer:
    case savekit::inspect::kind::floating:
      out += ",\"value\":" + savekit::to_json(n.text);  // as text: a uint64 or a float32 exactly
      break;
    case savekit::inspect::kind::string:
      if (savekit::is_valid_utf8(n.text))
        out += ",\"value\":" + savekit::to_json(n.text);
      else
        out += ",\"base64\":" + savekit::to_json(savekit::base64_encode(n.text));
      break;
    case savekit::inspect::kind::ext:
      out += ",\"ext_type\":" + std::to_string(n.ext_type);
      [[fallthrough]];
    case savekit::inspect::kind::bytes:
      out += ",\"base64\":" + savekit::to_json(savekit::base64_encode(n.text));
      break;
    case savekit::inspect::kind::array:
      out += ",\"items\":[";
      for (std::size_t i = 0; i < n.items.size(); ++i) {
        if (i) out += ',';
        node_json(out, n.items[i]);
      }
      out += ']';
      break;
    case savekit::inspect::kind::map:
      out += ",\"entries\":[";
      for (std::size_t i = 0; i + 1 < n.items.size(); i += 2) {
        if (i) out += ',';
        out += "{\"key\":";
        node_json(out, n.items[i]);
        out += ",\"value\":";
        node_json(out, n.items[i + 1]);
        out += '}';
      }
      out += ']';
      break;
  }
  out += '}';
}

// ---- reading a value's tree -------------------------------------------------------------------

struct command_source {
  std::string path, key;
  std::optional<std::uint64_t> generation;
  key_options keys;
};

savekit::result<value_source> source_of(const command_source& c) {
  value_source s{c.path, c.key, c.generation, nullptr};
#if SAVEKIT_CLI_SEAL
  auto sealer = sealer_of(c.keys);
  if (!sealer) return std::move(sealer).error();
  s.sealer = *sealer;
#endif
  return s;
}

savekit::result<node> tree_of(const opened_value& v) {
  return v.wire == savekit::inspect::wire::json ? savekit::inspect::read_json(v.bytes)
                                                : savekit::inspect::read_msgpack(v.bytes);
}

std::string where_of(const command_source& c) { return c.key.empty() ? c.path : c.path + ": " + c.key; }

// A tree that does not read: the error with a caret (JSON) or a hex dump (MessagePack).
int report_tree_error(const command_source& c, const opened_value& v, const savekit::error& e) {
  return report_input(where_of(c), e, v.bytes, v.wire == savekit::inspect::wire::msgpack);
}

void add_source_options(CLI::App* command, command_source& c, bool key_required) {
  command->add_option("FILE", c.path, "a MessagePack or JSON file, a store, a slots folder or a slot file")->required();
  auto* key = command->add_option("KEY", c.key, "the store's key or the folder's slot");
  if (key_required) key->required();
  command->add_option("--generation", c.generation, "a slot's older generation (savekit slots show lists them)");
#if SAVEKIT_CLI_SEAL
  add_key_options(*command, c.keys, "open sealed entries and payloads");
#endif
}

// ---- show ---------------------------------------------------------------------------------------

int cmd_show(const command_source& c, const std::string& path, bool json) {
  if (c.key.empty()) {
    auto listing = describe_container(c.path);
    if (!listing) return report(c.path, listing.error());
    if (*listing) {
      output out;
      out.write(**listing);
      return out.finish(ok);
    }
  }
  auto source = source_of(c);
  if (!source) return report(c.keys.key_file, source.error());
  auto value = open_value(*source);
  if (!value) return report(where_of(c), value.error());
  output out;
  if (value->sealed && !value->sealed_header.empty()) {
    out.line(terminal_safe(where_of(c), false) + ": " + value->description);
    out.line(value->sealed_header);
    return out.finish(ok);
  }
  auto tree = tree_of(*value);
  if (!tree) return report_tree_error(c, *value, tree.error());
  const node* shown = savekit::inspect::at(*tree, path);
  if (!shown)
    return report(where_of(c), savekit::error{savekit::errc::not_found, 0, "nothing at the path '" + path + "'"});
  if (json) {
    std::string text = "{\"source\":" + savekit::to_json(value->description) +
                       ",\"bytes\":" + std::to_string(value->bytes.size()) + ",\"path\":" + savekit::to_json(path) +
                       ",\"tree\":";
    node_json(text, *shown);
    out.line(text + "}");
    return out.finish(ok);
  }
  const palette p = palette_for_stdout();
  out.line(p.paint("1", terminal_safe(where_of(c), false)) + " — " + value->description + ", " +
           std::to_string(value->bytes.size()) + " bytes" +
           (value->raw ? " (stored as itself; shown as one value)" : ""));
  const std::string rendered = savekit::inspect::render(*shown);
  for (std::size_t start = 0; start < rendered.size();) {
    const std::size_t end = rendered.find('\n', start);
    // (render escapes what a save holds; terminal_safe again, in case: nothing reaches the terminal raw.)
    out.line(coloured_line(terminal_safe(std::string_view{rendered}.substr(start, end - start), false), p));
    start = end + 1;
  }
  return out.finish(ok);
}

// ---- diff ---------------------------------------------------------------------------------------

std::string summary(const node* n) {
  if (!n) return "";
  std::string line =
      savekit::inspect::render(*n, {.offsets = false, .max_bytes = 16, .max_string = 60, .children = false});
  return terminal_safe(line.substr(0, line.find('\n')), false);
}

int cmd_diff(const command_source& a, const command_source& b, const savekit::inspect::diff_options& options,
             bool json) {
  constexpr int trouble = 2;  // as diff(1): 0 the same, 1 different, 2 trouble
  std::optional<node> trees[2];
  std::string descriptions[2];
  const command_source* sides[2] = {&a, &b};
  for (int i = 0; i < 2; ++i) {
    auto source = source_of(*sides[i]);
    if (!source) {
      report(sides[i]->keys.key_file, source.error());
      return trouble;
    }
    auto value = open_value(*source);
    if (!value) {
      report(where_of(*sides[i]), value.error());
      return trouble;
    }
    if (value->sealed && !value->sealed_header.empty()) {
      report(where_of(*sides[i]), savekit::error{savekit::errc::key_not_held, 0, value->sealed_header});
      return trouble;
    }
    auto tree = tree_of(*value);
    if (!tree) {
      report_tree_error(*sides[i], *value, tree.error());
      return trouble;
    }
    trees[i] = std::move(*tree);
    descriptions[i] = value->description;
  }
  const savekit::inspect::diff_result d = savekit::inspect::diff(*trees[0], *trees[1], options);
  output out;
  if (json) {
    std::string text = "{\"same\":" + std::string(d.changes.empty() ? "true" : "false") +
                       ",\"truncated\":" + (d.truncated ? "true" : "false") + ",\"changes\":[";
    for (std::size_t i = 0; i < d.changes.size(); ++i) {
      const auto& ch = d.changes[i];
      text += (i ? ",{" : "{");
      text += "\"change\":\"" +
              std::string(ch.kind == savekit::inspect::change::what::added     ? "added"
                          : ch.kind == savekit::inspect::change::what::removed ? "removed"
                                                                               : "changed") +
              "\",\"path\":" + savekit::to_json(ch.path);
      if (ch.a) {
        text += ",\"a\":";
        node_json(text, *ch.a);
      }
      if (ch.b) {
        text += ",\"b\":";
        node_json(text, *ch.b);
      }
      text += '}';
    }
    out.line(text + "]}");
    return out.finish(d.changes.empty() ? ok : failure);
  }
  const palette p = palette_for_stdout();
  for (const auto& ch : d.changes) {
    const std::string path = terminal_safe(ch.path.empty() ? "(the whole value)" : ch.path, false);
    switch (ch.kind) {
      case savekit::inspect::change::what::changed:
        out.line(p.paint("33", "~ " + path) + ": " + summary(ch.a) + " -> " + summary(ch.b));
        break;
      case savekit::inspect::change::what::added:
        out.line(p.paint("32", "+ " + path) + ": " + summary(ch.b));
        break;
      case savekit::inspect::change::what::removed:
        out.line(p.paint("31", "- " + path) + ": " + summary(ch.a));
        break;
    }
  }
  if (d.truncated) out.line("… more changes not shown (" + std::to_string(d.changes.size()) + " listed)");
  if (d.changes.empty()) out.line("same");
  return out.finish(d.changes.empty() ? ok : failure);
}

// ---- edit ---------------------------------------------------------------------------------------

// Runs $VISUAL or $EDITOR (vi if neither) on file, as a shell command line: "code --wait" works.
int run_editor(const std::string& file) {
  const char* editor = std::getenv("VISUAL");
  if (!editor || !*editor) editor = std::getenv("EDITOR");
  if (!editor || !*editor) editor = "vi";
  std::fflush(stdout);
  const pid_t child = ::fork();
  if (child < 0) return -1;
  if (child == 0) {
    const std::string command = std::string{editor} + " \"$1\"";
    ::execl("/bin/sh", "sh", "-c", command.c_str(), "sh", file.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// Asks on the terminal whether to edit again (never when standard input is not one: a script
// gets the error and exit 1).
bool ask_again() {
  if (::isatty(STDIN_FILENO) != 1) return false;
  std::fputs("Edit again? [Y/n] ", stderr);
  char answer[16] = {};
  if (!std::fgets(answer, sizeof answer, stdin)) return false;
  return answer[0] != 'n' && answer[0] != 'N';
}

int cmd_edit(const command_source& c, const std::string& schema_file, bool allow_type_changes) {
  std::optional<savekit::inspect::schema> schema;
  if (!schema_file.empty()) {
    auto text = read_input(schema_file);
    if (!text) return report(schema_file, text.error());
    auto parsed = savekit::inspect::schema::parse(*text);
    if (!parsed) return report_input(schema_file, parsed.error(), *text, false);
    schema = std::move(*parsed);
  }
  auto source = source_of(c);
  if (!source) return report(c.keys.key_file, source.error());
  if (c.generation)
    return report(where_of(c), {savekit::errc::invalid_value, 0,
                                "edit writes the newest generation; "
                                "restore an older one first"});
  auto value = open_value(*source);
  if (!value) return report(where_of(c), value.error());
  if (value->sealed && !value->sealed_header.empty())
    return report(where_of(c), {savekit::errc::key_not_held, 0, value->sealed_header});
  if (value->kind == source_kind::slot &&
      value->encoding == static_cast<std::uint8_t>(savekit::object_encoding::msgpack_compact))
    return report(where_of(c),
                  {savekit::errc::unsupported_type, 0,
                   "a compact save's layout is the game's: edit it through the game, or save it in map form"});
  auto tree = tree_of(*value);
  if (!tree) return report_tree_error(c, *value, tree.error());
  auto json = savekit::inspect::to_editable_json(*tree);
  if (!json) return report(where_of(c), json.error());

  const char* tmp = std::getenv("TMPDIR");
  std::string file = std::string{tmp && *tmp ? tmp : "/tmp"} + "/savekit-edit-XXXXXX.json";
  const int fd = ::mkstemps(file.data(), 5);
  if (fd < 0) return report(file, io_failure("cannot make a file to edit", errno));
  ::close(fd);
  if (savekit::status written = write_file(file, *json); !written) return report(file, written.error());
  std::string edited_text;
  savekit::result<node> edited = savekit::error{};
  for (;;) {
    const int code = run_editor(file);
    if (code != 0) {
      warn(file, "the editor ended with status " + std::to_string(code) + "; nothing was saved");
      std::remove(file.c_str());
      return failure;
    }
    auto text = read_input(file);
    if (!text) return report(file, text.error());
    edited_text = std::move(*text);
    if (edited_text == *json) {
      std::remove(file.c_str());
      std::fprintf(stderr, "savekit: %s: no change; nothing was saved\n", terminal_safe(where_of(c), false).c_str());
      return ok;
    }
    edited = savekit::inspect::apply_edit(*tree, edited_text, value->wire, {.allow_type_changes = allow_type_changes});
    bool refused = false;
    if (!edited) {
      report_input(file, edited.error(), edited_text, false);
      refused = true;
    } else if (schema) {
      auto problems = schema->check(*edited);
      for (const auto& p : problems)
        std::fprintf(stderr, "savekit: %s: %s: %s\n", terminal_safe(schema_file, false).c_str(),
                     terminal_safe(p.path.empty() ? "(the whole value)" : p.path, false).c_str(),
                     terminal_safe(p.reason, false).c_str());
      refused = !problems.empty();
    }
    if (!refused) break;
    if (!ask_again()) {
      std::fprintf(stderr, "savekit: nothing was saved; your edit is kept in %s\n", file.c_str());
      return failure;
    }
  }
  auto bytes = savekit::inspect::write(*edited, value->bytes, value->wire);
  if (!bytes) {
    report(where_of(c), bytes.error());
    std::fprintf(stderr, "savekit: nothing was saved; your edit is kept in %s\n", file.c_str());
    return failure;
  }
  if (*bytes == value->bytes) {
    std::remove(file.c_str());
    std::fprintf(stderr, "savekit: %s: the same value; nothing was saved\n", terminal_safe(where_of(c), false).c_str());
    return ok;
  }
  auto saved = write_value(*source, *value, *bytes);
  if (!saved) {
    report(where_of(c), saved.error());
    std::fprintf(stderr, "savekit: nothing was saved; your edit is kept in %s\n", file.c_str());
    return saved.error().code() == savekit::errc::locked ? in_use : failure;
  }
  std::remove(file.c_str());
  std::fprintf(stderr, "savekit: %s: saved as %s\n", terminal_safe(where_of(c), false).c_str(), saved->c_str());
  return ok;
}

// ---- schema -------------------------------------------------------------------------------------

int cmd_schema(const std::string& schema_file, const command_source& c) {
  auto text = read_input(schema_file);
  if (!text) return report(schema_file, text.error());
  auto schema = savekit::inspect::schema::parse(*text);
  if (!schema) return report_input(schema_file, schema.error(), *text, false);
  auto source = source_of(c);
  if (!source) return report(c.keys.key_file, source.error());
  auto value = open_value(*source);
  if (!value) return report(where_of(c), value.error());
  if (value->sealed && !value->sealed_header.empty())
    return report(where_of(c), {savekit::errc::key_not_held, 0, value->sealed_header});
  auto tree = tree_of(*value);
  if (!tree) return report_tree_error(c, *value, tree.error());
  const auto problems = schema->check(*tree, 100);
  output out;
  for (const auto& p : problems)
    out.line(terminal_safe(p.path.empty() ? "(the whole value)" : p.path, false) + ": " +
             terminal_safe(p.reason, false));
  if (problems.empty()) out.line("valid");
  return out.finish(problems.empty() ? ok : failure);
}

}  // namespace

void setup_inspect_commands(CLI::App& app, int& exit_code) {
  // Each command's options live as long as app (parsed after this returns).
  struct show_options {
    command_source source;
    std::string path;
    bool json = false;
  };
  auto show = std::make_shared<show_options>();
  auto* show_command = app.add_subcommand(
      "show", "The typed tree of a save: each value's wire format (int width, float32/64, bin, ext), offset and size");
  add_source_options(show_command, show->source, false);
  show_command->add_option("--path", show->path, "only the value at this path: items[2].name, stats.\"a.b\"");
  show_command->add_flag("--json", show->json, "the tree as JSON, for machines");
  show_command->callback([show, &exit_code] { exit_code = cmd_show(show->source, show->path, show->json); });

  struct diff_options {
    command_source a, b;
    std::string key;
    std::optional<std::uint64_t> generation_a, generation_b;
    std::string id_field;
    std::vector<std::string> ignore;
    bool json = false;
  };
  auto diff = std::make_shared<diff_options>();
  auto* diff_command =
      app.add_subcommand("diff", "What changed between two saves: exit 0 the same, 1 different, 2 trouble (as diff)");
  diff_command->add_option("A", diff->a.path, "a file, store or slots folder")->required();
  diff_command->add_option("B", diff->b.path, "another (or the same, with --generation-a/-b)")->required();
  diff_command->add_option("--key", diff->key, "the key or slot, in both");
  diff_command->add_option("--generation-a", diff->generation_a, "A's slot generation");
  diff_command->add_option("--generation-b", diff->generation_b, "B's slot generation");
  diff_command->add_option("--id-field", diff->id_field, "align arrays of objects by this member");
  diff_command->add_option("--ignore", diff->ignore,
                           "leave out this path and what is under it ('*': any key or index)");
  diff_command->add_flag("--json", diff->json, "the changes as JSON");
#if SAVEKIT_CLI_SEAL
  add_key_options(*diff_command, diff->a.keys, "open sealed entries and payloads");
#endif
  diff_command->callback([diff, &exit_code] {
    diff->a.key = diff->b.key = diff->key;
    diff->a.generation = diff->generation_a;
    diff->b.generation = diff->generation_b;
    diff->b.keys = diff->a.keys;
    exit_code = cmd_diff(diff->a, diff->b, {.id_field = diff->id_field, .ignore = diff->ignore}, diff->json);
  });

  struct edit_options {
    command_source source;
    std::string schema;
    bool allow_type_changes = false;
  };
  auto edit = std::make_shared<edit_options>();
  auto* edit_command = app.add_subcommand(
      "edit", "Edit a store's entry or a slot as JSON in $EDITOR; types kept; saved as a new commit or generation");
  add_source_options(edit_command, edit->source, true);
  edit_command->add_option("--schema", edit->schema,
                           "refuse an edit this JSON Schema refuses (savekit::json_schema<T>)");
  edit_command->add_flag("--allow-type-changes", edit->allow_type_changes,
                         "a value may change kind (an integer becomes a string)");
  edit_command->callback(
      [edit, &exit_code] { exit_code = cmd_edit(edit->source, edit->schema, edit->allow_type_changes); });

  struct schema_options {
    std::string schema;
    command_source source;
  };
  auto schema = std::make_shared<schema_options>();
  auto* schema_command = app.add_subcommand(
      "schema", "Check a save against a JSON Schema (savekit::json_schema<T> writes one): exit 0 valid");
  schema_command->add_option("SCHEMA", schema->schema, "the JSON Schema file")->required();
  add_source_options(schema_command, schema->source, false);
  schema_command->callback([schema, &exit_code] { exit_code = cmd_schema(schema->schema, schema->source); });
}

}  // namespace savekit_cli
