// The C++ half of the bindings' interop tests: a store and a slots folder written by C++
// for Python and C# to read, and what they wrote back, checked here byte for byte.
//   interop write DIR   writes DIR/cpp.prefs and DIR/saves (slots "cpp-object", "cpp-bytes")
//   interop check DIR   reads DIR/binding.prefs and slot "from-binding" in DIR/saves
// The values are the ones the bindings' tests expect: a change here must be made there.
#include <savekit/prefs.hpp>
#include <savekit/slots.hpp>

#include <cstdio>
#include <string>

#include "seed_types.hpp"

namespace {

const std::string text_with_nul{"h\xc3\xa9llo\0w\xf0\x9f\x8e\xaeorld", 16};
const std::string bytes_value{"\x00\xff\x80\x00\x01", 5};

int failed(const char* what) {
  std::fprintf(stderr, "interop: %s\n", what);
  return 1;
}

int write(const std::string& dir) {
  {
    auto p = savekit::prefs::open(dir + "/cpp.prefs");
    if (!p) return failed(p.error().to_string().c_str());
    bool ok = p->set_int("level", -9007199254740993) && p->set_float("speed", 0.1) &&
              p->set_string("motto", text_with_nul) &&
              p->set_bytes(std::string{"k\0ey", 4}, std::as_bytes(std::span{bytes_value})) &&
              p->set("status", seeds::Status{}) && p->save();
    if (!ok) return failed("could not write cpp.prefs");
  }
  auto s = savekit::slots::open(dir + "/saves");
  if (!s) return failed(s.error().to_string().c_str());
  savekit::slot_meta meta;
  meta.title = "Chapter 2 — The Forest";
  meta.playtime = std::chrono::seconds{11520};
  meta.user = {{"level", "12"}};
  if (!s->write("cpp-object", seeds::seed_save_game(), meta)) return failed("could not write cpp-object");
  if (!s->write_bytes("cpp-bytes", bytes_value, savekit::object_encoding::bytes, 3, meta))
    return failed("could not write cpp-bytes");
  return 0;
}

int check(const std::string& dir) {
  auto p = savekit::prefs::open(dir + "/binding.prefs", {.create_if_missing = false, .read_only = true});
  if (!p) return failed(p.error().to_string().c_str());
  if (p->try_get_int("level").value_or(0) != -9007199254740993) return failed("level");
  if (p->try_get_float("speed").value_or(0) != 0.1) return failed("speed");
  if (p->try_get_string("motto").value_or("") != text_with_nul) return failed("motto");
  auto b = p->get_bytes(std::string{"k\0ey", 4});
  if (!b || std::string(reinterpret_cast<const char*>(b->data()), b->size()) != bytes_value) return failed("bytes");
  auto s = savekit::slots::open(dir + "/saves", {.read_only = true, .create_if_missing = false});
  if (!s) return failed(s.error().to_string().c_str());
  // The binding copied cpp-object's MessagePack: it reads as the object again.
  auto game = s->read<seeds::SaveGame>("from-binding");
  if (!game) return failed(game.error().to_string().c_str());
  if (*game != seeds::seed_save_game()) return failed("from-binding is not the seed's SaveGame");
  auto info = s->info("from-binding");
  if (!info || info->meta.title != "Chapter 2 — The Forest" || info->meta.user.at("level") != "12" ||
      info->schema_version != 1)
    return failed("from-binding's metadata");
  std::printf("interop: what the binding wrote reads back in C++\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return failed("usage: interop write|check DIR");
  const std::string mode = argv[1];
  if (mode == "write") return write(argv[2]);
  if (mode == "check") return check(argv[2]);
  return failed("usage: interop write|check DIR");
}
