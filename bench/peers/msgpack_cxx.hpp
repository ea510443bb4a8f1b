// msgpack-cxx (Debian libmsgpack-cxx-dev): pack into a reused sbuffer, unpack + convert.
// The seed types get non-intrusive adaptors in the map form (what MSGPACK_DEFINE_MAP
// would generate inside the type).
#pragma once

#include "peer.hpp"

#if SAVEKIT_HAVE_MSGPACK_CXX

#include <msgpack.hpp>

#include <string>
#include <vector>

#include "../bench_objects.hpp"

#define SAVEKIT_BENCH_MSGPACK_MAP(Type, ...)                                       \
  namespace msgpack {                                                              \
  MSGPACK_API_VERSION_NAMESPACE(MSGPACK_DEFAULT_API_NS) {                          \
    namespace adaptor {                                                            \
    template <>                                                                    \
    struct pack<Type> {                                                            \
      template <typename Stream>                                                   \
      packer<Stream>& operator()(packer<Stream>& o, const Type& value) const {     \
        auto& v = const_cast<Type&>(value);                                        \
        type::make_define_map(__VA_ARGS__).msgpack_pack(o);                        \
        return o;                                                                  \
      }                                                                            \
    };                                                                             \
    template <>                                                                    \
    struct convert<Type> {                                                         \
      const msgpack::object& operator()(const msgpack::object& o, Type& v) const { \
        type::make_define_map(__VA_ARGS__).msgpack_unpack(o);                      \
        return o;                                                                  \
      }                                                                            \
    };                                                                             \
    }                                                                              \
  }                                                                                \
  }

SAVEKIT_BENCH_MSGPACK_MAP(seeds::InventoryItem, "Id", v.Id, "Quantity", v.Quantity)
SAVEKIT_BENCH_MSGPACK_MAP(seeds::SaveGame, "Name", v.Name, "HighScore", v.HighScore, "Inventory", v.Inventory)
SAVEKIT_BENCH_MSGPACK_MAP(seeds::Equip, "name", v.name, "atk", v.atk, "def", v.def, "spd", v.spd)
SAVEKIT_BENCH_MSGPACK_MAP(seeds::Status, "lv", v.lv, "exp", v.exp, "hp", v.hp, "max_hp", v.max_hp, "atk", v.atk, "def",
                          v.def, "spd", v.spd, "equip", v.equip)

namespace bench::ways {

struct msgpack_cxx {
  static constexpr bool found = true;
  static constexpr const char* library = "msgpack-cxx";
  static std::string version() { return msgpack_version(); }
  using buffer = msgpack::sbuffer;
  static constexpr const char* name = "msgpack-cxx (map)";
  template <class T>
  static void write(const T& value, buffer& out) {
    out.clear();
    msgpack::pack(out, value);
  }
  template <class T>
  static bool read(std::string_view in, T& value) {
    try {
      msgpack::object_handle handle = msgpack::unpack(in.data(), in.size());
      handle.get().convert(value);
    } catch (const std::exception&) {
      return false;
    }
    return true;
  }
  template <class T>
  static bool read(const buffer& in, T& value) {
    return read(std::string_view(in.data(), in.size()), value);
  }
};

}  // namespace bench::ways

#else
SAVEKIT_BENCH_PEER_NOT_FOUND(msgpack_cxx, "msgpack-cxx (map)", "msgpack-cxx")
#endif
