// Interoperability with msgpack-cxx (Debian's libmsgpack-cxx-dev): each library reads
// what the other wrote, in the map form and in the compact array form.
#include <savekit/msgpack.hpp>

#include <gtest/gtest.h>
#include <msgpack.hpp>

#include <random>
#include <string>
#include <vector>

#include "seed_types.hpp"

namespace {

// The seed types as msgpack-cxx declares them.
struct PeerItem {
  int Id = 0;
  int Quantity = 0;
  MSGPACK_DEFINE_MAP(Id, Quantity)
};
struct PeerSaveGame {
  std::string Name;
  int HighScore = 0;
  std::vector<PeerItem> Inventory;
  MSGPACK_DEFINE_MAP(Name, HighScore, Inventory)
};
struct PeerEquip {
  std::string name;
  int atk = 0, def = 0, spd = 0;
  MSGPACK_DEFINE(name, atk, def, spd)  // array form
};
struct PeerStatus {
  int lv = 0, exp = 0, hp = 0, max_hp = 0, atk = 0, def = 0, spd = 0;
  PeerEquip equip;
  MSGPACK_DEFINE(lv, exp, hp, max_hp, atk, def, spd, equip)
};

struct Numbers {
  std::int8_t i8 = 0;
  std::int16_t i16 = 0;
  std::int32_t i32 = 0;
  std::int64_t i64 = 0;
  std::uint8_t u8 = 0;
  std::uint16_t u16 = 0;
  std::uint32_t u32 = 0;
  std::uint64_t u64 = 0;
  float f = 0;
  double d = 0;
  std::string text;
  std::vector<std::int64_t> list;
  std::map<std::string, double> table;
  bool operator==(const Numbers&) const = default;
};
struct PeerNumbers {
  std::int8_t i8 = 0;
  std::int16_t i16 = 0;
  std::int32_t i32 = 0;
  std::int64_t i64 = 0;
  std::uint8_t u8 = 0;
  std::uint16_t u16 = 0;
  std::uint32_t u32 = 0;
  std::uint64_t u64 = 0;
  float f = 0;
  double d = 0;
  std::string text;
  std::vector<std::int64_t> list;
  std::map<std::string, double> table;
  MSGPACK_DEFINE_MAP(i8, i16, i32, i64, u8, u16, u32, u64, f, d, text, list, table)
};

template <class T>
T peer_read(const std::vector<std::byte>& bytes) {
  msgpack::object_handle handle = msgpack::unpack(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return handle.get().as<T>();
}

template <class T>
std::vector<std::byte> peer_write(const T& value) {
  msgpack::sbuffer buffer;
  msgpack::pack(buffer, value);
  auto* data = reinterpret_cast<const std::byte*>(buffer.data());
  return {data, data + buffer.size()};
}

Numbers random_numbers(std::mt19937_64& rng) {
  Numbers n;
  n.i8 = static_cast<std::int8_t>(rng());
  n.i16 = static_cast<std::int16_t>(rng());
  n.i32 = static_cast<std::int32_t>(rng());
  n.i64 = static_cast<std::int64_t>(rng()) >> (rng() % 64);
  n.u8 = static_cast<std::uint8_t>(rng());
  n.u16 = static_cast<std::uint16_t>(rng());
  n.u32 = static_cast<std::uint32_t>(rng());
  n.u64 = rng() >> (rng() % 64);
  n.f = static_cast<float>(static_cast<std::int32_t>(rng())) / 1024.0f;
  n.d = static_cast<double>(static_cast<std::int64_t>(rng())) / 3.0;
  for (std::size_t i = rng() % 40; i > 0; --i) n.text.push_back(static_cast<char>(rng()));
  for (std::size_t i = rng() % 20; i > 0; --i) n.list.push_back(static_cast<std::int64_t>(rng()) >> (rng() % 64));
  for (std::size_t i = rng() % 20; i > 0; --i)
    n.table["k" + std::to_string(rng() % 1000)] = static_cast<double>(rng() % 1000) / 8;
  return n;
}

}  // namespace

TEST(Interop, PeerReadsSavekitMapForm) {
  auto peer = peer_read<PeerSaveGame>(savekit::to_msgpack(seeds::seed_save_game()));
  EXPECT_EQ(peer.Name, "Speed Run");
  EXPECT_EQ(peer.HighScore, 10000);
  ASSERT_EQ(peer.Inventory.size(), 2u);
  EXPECT_EQ(peer.Inventory[1].Id, 200);
  EXPECT_EQ(peer.Inventory[1].Quantity, 20);
}

TEST(Interop, PeerReadsSavekitCompactForm) {
  auto peer =
      peer_read<PeerStatus>(savekit::to_msgpack(seeds::seed_status(), {.form = savekit::msgpack_form::compact}));
  EXPECT_EQ(peer.hp, 10);
  EXPECT_EQ(peer.equip.name, "ぬののふく");
  EXPECT_EQ(peer.equip.def, 1);
}

TEST(Interop, SavekitReadsPeerOutput) {
  PeerSaveGame save{"Speed Run", 10000, {{100, 5}, {200, 20}}};
  auto loaded = savekit::from_msgpack<seeds::SaveGame>(peer_write(save));
  ASSERT_TRUE(loaded) << loaded.error().to_string();
  EXPECT_EQ(*loaded, seeds::seed_save_game());
  // Both pick the smallest encodings: the bytes agree.
  EXPECT_EQ(peer_write(save), savekit::to_msgpack(seeds::seed_save_game()));

  PeerStatus status{1, 0, 10, 10, 1, 1, 1, {"ぬののふく", 0, 1, 0}};
  auto status_loaded = savekit::from_msgpack<seeds::Status>(peer_write(status));
  ASSERT_TRUE(status_loaded) << status_loaded.error().to_string();
  EXPECT_EQ(*status_loaded, seeds::seed_status());
}

TEST(Interop, RandomValuesBothWays) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 2000; ++i) {
    Numbers value = random_numbers(rng);
    auto ours = savekit::to_msgpack(value);
    auto peer = peer_read<PeerNumbers>(ours);
    // What the peer read, written back by the peer, must read into the same value. (The
    // bytes may differ: msgpack-cxx writes integral doubles as integers.)
    auto theirs = peer_write(peer);
    auto back = savekit::from_msgpack<Numbers>(theirs);
    ASSERT_TRUE(back) << back.error().to_string();
    ASSERT_EQ(*back, value) << "iteration " << i;
    // Both pick the smallest encodings, so the bytes agree too.
  }
}
