// savekit convert (convert_command.hpp).
#include "convert_command.hpp"

#include <savekit/savekit.hpp>

#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "cli_files.hpp"

namespace savekit_cli {
namespace {

std::string_view as_text(const std::vector<std::byte>& b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

int cmd_convert(const std::string& from, const std::string& to, const std::string& file, const std::string& output_path,
                bool pretty) {
  std::string where = file.empty() || file == "-" ? "<stdin>" : file;
  auto input = read_input(file);
  if (!input) return report(where, input.error());
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
  return write_output(output_path, result);
}

}  // namespace

void setup_convert_command(CLI::App& app, int& exit_code) {
  struct options {
    std::string from, to, file, output;
    bool pretty = false;
  };
  auto o = std::make_shared<options>();
  const std::vector<std::string> forms{"json", "msgpack", "base64"};
  auto* conv = app.add_subcommand("convert", "Convert a save between JSON, MessagePack and Base64 (of MessagePack)");
  conv->add_option("--from", o->from, one_of(forms))->required()->check(CLI::IsMember(forms));
  conv->add_option("--to", o->to, one_of(forms))->required()->check(CLI::IsMember(forms));
  conv->add_option("FILE", o->file, "input (default: standard input)");
  conv->add_option("-o,--output", o->output, "output file (default: standard output)");
  conv->add_flag("--pretty", o->pretty, "indent JSON output");
  conv->callback([o, &exit_code] { exit_code = cmd_convert(o->from, o->to, o->file, o->output, o->pretty); });
}

}  // namespace savekit_cli
