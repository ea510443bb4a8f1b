// cereal (Debian libcereal-dev): non-intrusive serialize functions; JSON and binary archives.
#pragma once

#include "peer.hpp"

#if SAVEKIT_HAVE_CEREAL
#include <cereal/version.hpp>

#include <cereal/archives/binary.hpp>
#include <cereal/archives/json.hpp>
#include <cereal/types/map.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include <sstream>
#include <string>

#include "../bench_objects.hpp"
#include "../world.hpp"

namespace seeds {
template <class Archive>
void serialize(Archive& a, InventoryItem& i) {
  a(cereal::make_nvp("Id", i.Id), cereal::make_nvp("Quantity", i.Quantity));
}
template <class Archive>
void serialize(Archive& a, SaveGame& s) {
  a(cereal::make_nvp("Name", s.Name), cereal::make_nvp("HighScore", s.HighScore),
    cereal::make_nvp("Inventory", s.Inventory));
}
template <class Archive>
void serialize(Archive& a, Equip& e) {
  a(cereal::make_nvp("name", e.name), cereal::make_nvp("atk", e.atk), cereal::make_nvp("def", e.def),
    cereal::make_nvp("spd", e.spd));
}
template <class Archive>
void serialize(Archive& a, Status& s) {
  a(cereal::make_nvp("lv", s.lv), cereal::make_nvp("exp", s.exp), cereal::make_nvp("hp", s.hp),
    cereal::make_nvp("max_hp", s.max_hp), cereal::make_nvp("atk", s.atk), cereal::make_nvp("def", s.def),
    cereal::make_nvp("spd", s.spd), cereal::make_nvp("equip", s.equip));
}
}  // namespace seeds

namespace bench {
template <class Archive>
void serialize(Archive& a, Vec3& v) {
  a(cereal::make_nvp("x", v.x), cereal::make_nvp("y", v.y), cereal::make_nvp("z", v.z));
}
template <class Archive>
void serialize(Archive& a, Npc& n) {
  a(cereal::make_nvp("name", n.name), cereal::make_nvp("title", n.title), cereal::make_nvp("position", n.position),
    cereal::make_nvp("hp", n.hp), cereal::make_nvp("dialogue", n.dialogue), cereal::make_nvp("flags", n.flags));
}
template <class Archive>
void serialize(Archive& a, Chunk& c) {
  a(cereal::make_nvp("x", c.x), cereal::make_nvp("y", c.y), cereal::make_nvp("heights", c.heights),
    cereal::make_nvp("npcs", c.npcs));
}
template <class Archive>
void serialize(Archive& a, World& w) {
  a(cereal::make_nvp("name", w.name), cereal::make_nvp("chunks", w.chunks), cereal::make_nvp("log", w.log));
}
}  // namespace bench

namespace bench::ways {

// cereal's archives work on streams; a reused ostringstream is the cheapest honest use.
template <class OutputArchive, class InputArchive, bool Json>
struct cereal_archive {
  using buffer = std::string;
  static constexpr bool found = true;
  static constexpr const char* name = Json ? "cereal JSON" : "cereal binary";
  static constexpr const char* library = "cereal";
  static std::string version() {
    return std::to_string(CEREAL_VERSION_MAJOR) + "." + std::to_string(CEREAL_VERSION_MINOR) + "." +
           std::to_string(CEREAL_VERSION_PATCH);
  }
  template <class T>
  static void write(const T& value, buffer& out) {
    std::ostringstream stream;
    {
      OutputArchive archive(stream);
      archive(cereal::make_nvp("value", const_cast<T&>(value)));
    }
    out = std::move(stream).str();
  }
  template <class T>
  static bool read(const buffer& in, T& value) {
    std::istringstream stream(in);
    try {
      InputArchive archive(stream);
      archive(cereal::make_nvp("value", value));
    } catch (const std::exception&) {
      return false;
    }
    return true;
  }
};

using cereal_json = cereal_archive<cereal::JSONOutputArchive, cereal::JSONInputArchive, true>;
using cereal_binary = cereal_archive<cereal::BinaryOutputArchive, cereal::BinaryInputArchive, false>;

}  // namespace bench::ways

#else
SAVEKIT_BENCH_PEER_NOT_FOUND(cereal_json, "cereal JSON", "cereal")
SAVEKIT_BENCH_PEER_NOT_FOUND(cereal_binary, "cereal binary", "cereal")
#endif
