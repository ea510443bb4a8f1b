// Writes a slots folder with what no savekit writer produces, for the CLI tests: a slot
// from a newer format under a long (hashed) name, a title and a field with terminal escape
// sequences, and a JSON payload edited by hand (its checksums recomputed) to hold raw
// control characters, and metadata that passes its checksum but does not decode.
// Usage: forge_slots FOLDER
#include <savekit/slots.hpp>

#include <cstdio>
#include <fstream>
#include <string>

#include "crc32c.hpp"
#include "little_endian.hpp"
#include "slot_format.hpp"

namespace {

std::string file_of(std::string_view name, std::uint32_t version, savekit::object_encoding encoding,
                    const savekit::slot_meta& meta, const std::string& payload) {
  savekit::detail::slot_header header;
  header.generation = 1;
  header.saved_at_us = 1700000000000000;
  header.schema_version = 1;
  header.encoding = encoding;
  std::string file =
      savekit::detail::encode_slot_head(header, name, savekit::detail::encode_slot_meta(meta), {}, payload) + payload;
  if (version != savekit::detail::slot_format_version) {
    for (int i = 0; i < 4; ++i) file[8 + static_cast<std::size_t>(i)] = static_cast<char>((version >> (8 * i)) & 0xFF);
    // A newer savekit's header ends with its checksum too (docs/slot-format.md).
    std::string checksum;
    savekit::detail::put_u32(checksum, savekit::detail::crc32c(file.data(), savekit::detail::slot_header_size - 4));
    file.replace(savekit::detail::slot_header_size - 4, 4, checksum);
  }
  return file;
}

bool put(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
  return bool(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string folder = argv[1];
  {
    auto s = savekit::slots::open(folder);  // makes the folder a slots folder (its lock file)
    if (!s) return 1;
    savekit::slot_meta hostile;
    hostile.title = "evil\x1b[2Jtitle";
    hostile.user = {{"note", "\x1b]0;pwned\x07"}};
    if (!s->write("escapes", 1, hostile)) return 1;
    // The game's own bytes (the C ABI writes these): shown as Base64, verified by checksum.
    if (!s->write_bytes("own-format", std::string{"\x00\xffown", 5}, savekit::object_encoding::bytes, 1)) return 1;
  }
  const std::string long_name = std::string(60, 'L') + " newer";
  const std::string base = savekit::detail::slot_file_base(long_name);
  bool ok = put(folder + "/" + base + ".1.slot",
                file_of(long_name, 2, savekit::object_encoding::msgpack, {}, std::string{"\xc3"}));
  ok = ok && put(folder + "/s-edited.1.slot",
                 file_of("edited", 1, savekit::object_encoding::json, {}, "{\"name\":\"raw\x1b[31mred\"}"));
  {  // metadata that passes its checksum and does not decode: another writer's, not damage
    savekit::detail::slot_header header;
    header.generation = 1;
    const std::string payload = "\x80";
    ok = ok && put(folder + "/s-odd-meta.1.slot",
                   savekit::detail::encode_slot_head(header, "odd-meta", "\xc1", {}, payload) + payload);
  }
  std::printf("%s\n", base.c_str());
  return ok ? 0 : 1;
}
