// Boost.Serialization (Debian libboost-serialization-dev): binary archives, no header.
#pragma once

#include "peer.hpp"

#if SAVEKIT_HAVE_BOOST_SERIALIZATION

#include <boost/archive/binary_iarchive.hpp>
#include <boost/archive/binary_oarchive.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>
#include <boost/version.hpp>

#include <sstream>
#include <string>

#include "../bench_objects.hpp"

namespace boost::serialization {
template <class Archive>
void serialize(Archive& a, seeds::InventoryItem& i, unsigned) {
  a& i.Id& i.Quantity;
}
template <class Archive>
void serialize(Archive& a, seeds::SaveGame& s, unsigned) {
  a& s.Name& s.HighScore& s.Inventory;
}
template <class Archive>
void serialize(Archive& a, seeds::Equip& e, unsigned) {
  a& e.name& e.atk& e.def& e.spd;
}
template <class Archive>
void serialize(Archive& a, seeds::Status& s, unsigned) {
  a& s.lv& s.exp& s.hp& s.max_hp& s.atk& s.def& s.spd& s.equip;
}
}  // namespace boost::serialization

namespace bench::ways {

struct boost_binary {
  static constexpr bool found = true;
  static constexpr const char* library = "Boost.Serialization";
  static std::string version() { return BOOST_LIB_VERSION; }
  using buffer = std::string;
  static constexpr const char* name = "Boost.Serialization binary";
  static constexpr auto flags = boost::archive::no_header;
  template <class T>
  static void write(const T& value, buffer& out) {
    std::ostringstream stream;
    {
      boost::archive::binary_oarchive archive(stream, flags);
      archive << value;
    }
    out = std::move(stream).str();
  }
  template <class T>
  static bool read(const buffer& in, T& value) {
    std::istringstream stream(in);
    try {
      boost::archive::binary_iarchive archive(stream, flags);
      archive >> value;
    } catch (const std::exception&) {
      return false;
    }
    return true;
  }
};

}  // namespace bench::ways

#else
SAVEKIT_BENCH_PEER_NOT_FOUND(boost_binary, "Boost.Serialization binary", "Boost.Serialization")
#endif
