// Instructions per codec operation, savekit beside glaze, for callgrind (bench/instructions.sh):
// on a shared virtual machine, whose timings swing by tens of percent from run to run, the
// count of instructions executed is exact and repeatable, so it shows what a change to a
// read or write path did. (It is not time: bench/run.sh codecs measures that.)
//
//   codec_instructions LIBRARY CASE N     LIBRARY: savekit | glaze
//   CASE: OBJECT_OPERATION with OBJECT status | save | big | world and OPERATION
//         json | compact | map (reads, into one reused object) or jsonwrite | compactwrite |
//         mapwrite (into one reused buffer); N operations after one untimed round.
// Exit status 0 only if every read succeeded and gave back the value written.
#include <savekit/savekit.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_objects.hpp"
#include "peers/glaze.hpp"
#include "world.hpp"

namespace {

using savekit::msgpack_form;

struct savekit_library {
  template <class T>
  static bool reads(const T& value, const std::string& op, int n) {
    T into{};
    bool ok = true;
    if (op == "json") {
      std::string text = savekit::to_json(value);
      for (int i = 0; i <= n; ++i) ok &= savekit::from_json(text, into).has_value();
    } else {
      auto bytes = savekit::to_msgpack(value, {.form = op == "map" ? msgpack_form::map : msgpack_form::compact});
      for (int i = 0; i <= n; ++i) ok &= savekit::from_msgpack(bytes, into).has_value();
    }
    return ok && into == value;
  }
  template <class T>
  static bool writes(const T& value, const std::string& op, int n) {
    if (op == "jsonwrite") {
      std::string text;
      for (int i = 0; i <= n; ++i) savekit::to_json(value, text);
      return !text.empty();
    }
    std::vector<std::byte> bytes;
    const savekit::msgpack_options options{.form = op == "mapwrite" ? msgpack_form::map : msgpack_form::compact};
    for (int i = 0; i <= n; ++i) savekit::to_msgpack(value, bytes, options);
    return !bytes.empty();
  }
};

#if SAVEKIT_HAVE_GLAZE
struct glaze_library {
  static constexpr glz::opts json{};
  static constexpr glz::opts array{.format = glz::MSGPACK, .structs_as_arrays = true};
  static constexpr glz::opts map{.format = glz::MSGPACK};
  template <glz::opts Options, class T>
  static bool read_n(const T& value, int n) {
    std::string buffer;
    if (glz::write<Options>(value, buffer)) return false;
    T into{};
    bool ok = true;
    for (int i = 0; i <= n; ++i) ok &= !glz::read<Options>(into, buffer);
    return ok && into == value;
  }
  template <glz::opts Options, class T>
  static bool write_n(const T& value, int n) {
    std::string buffer;
    bool ok = true;
    for (int i = 0; i <= n; ++i) ok &= !glz::write<Options>(value, buffer);
    return ok;
  }
  template <class T>
  static bool reads(const T& value, const std::string& op, int n) {
    return op == "json" ? read_n<json>(value, n) : op == "map" ? read_n<map>(value, n) : read_n<array>(value, n);
  }
  template <class T>
  static bool writes(const T& value, const std::string& op, int n) {
    return op == "jsonwrite"  ? write_n<json>(value, n)
           : op == "mapwrite" ? write_n<map>(value, n)
                              : write_n<array>(value, n);
  }
};
#endif

template <class Library, class T>
[[gnu::noinline]] bool run(const T& value, const std::string& op, int n) {
  if (op == "json" || op == "compact" || op == "map") return Library::reads(value, op, n);
  if (op == "jsonwrite" || op == "compactwrite" || op == "mapwrite") return Library::writes(value, op, n);
  std::fprintf(stderr, "unknown operation %s\n", op.c_str());
  return false;
}

template <class Library>
bool run_case(const std::string& object, const std::string& op, int n) {
  if (object == "status") return run<Library>(seeds::seed_status(), op, n);
  if (object == "save") return run<Library>(seeds::seed_save_game(), op, n);
  if (object == "big") return run<Library>(bench::large_save_game(), op, n);
  if (object == "world") return run<Library>(bench::make_world(), op, n);
  std::fprintf(stderr, "unknown object %s\n", object.c_str());
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: codec_instructions savekit|glaze OBJECT_OPERATION N\n");
    return 2;
  }
  std::string library = argv[1], name = argv[2];
  int n = std::atoi(argv[3]);
  auto split = name.find('_');
  if (split == std::string::npos) return 2;
  std::string object = name.substr(0, split), op = name.substr(split + 1);
  bool ok = false;
  if (library == "savekit") {
    ok = run_case<savekit_library>(object, op, n);
  } else if (library == "glaze") {
#if SAVEKIT_HAVE_GLAZE
    ok = run_case<glaze_library>(object, op, n);
#else
    std::fprintf(stderr, "glaze was not found when this was built (SAVEKIT_GLAZE_INCLUDE_DIR)\n");
    return 3;
#endif
  } else {
    return 2;
  }
  return ok ? 0 : 1;
}
