// Study A's ways of saving the seed's Status into a PlayerPrefs-style store, shared by the
// native study (seed_studies.cpp) and the WebAssembly one (web/study_a_wasm.cpp), so that
// the two time the same code. Peers that need compiled libraries or exceptions (jsoncpp,
// cereal, msgpack-cxx, Boost, simdjson) exist only natively: SAVEKIT_STUDY_A_ALL_PEERS.
// A peer not installed is skipped (bench::skipped_libraries()).
#pragma once

#include <savekit/prefs.hpp>
#include <savekit/savekit.hpp>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bench_objects.hpp"
#include "peers/nlohmann.hpp"
#include "peers/peer.hpp"
#include "peers/rapidjson.hpp"
#include "peers/savekit_ways.hpp"
#include "per_key.hpp"
#include "status_floor.hpp"
#ifdef SAVEKIT_STUDY_A_ALL_PEERS
#include "peers/boost_serialization.hpp"
#include "peers/cereal.hpp"
#include "peers/jsoncpp.hpp"
#include "peers/msgpack_cxx.hpp"
#include "peers/simdjson.hpp"
#endif

namespace bench::study_a {

using seeds::Status;

[[noreturn]] inline void die(const std::string& message) {
  std::fprintf(stderr, "\nstudy A: %s\n", message.c_str());
  std::exit(1);
}

inline void check(const savekit::status& s, const std::string& what) {
  if (!s) die(what + ": " + s.error().to_string());
}

struct way_a {
  std::string name;
  std::string library;  // whose code serializes and deserializes
  std::string stored_as;
  std::function<void(savekit::prefs&, const Status&)> save;
  std::function<void(const savekit::prefs&, Status&)> load;
  bool loads_only = false;  // the library only reads: the save is savekit's JSON
};

inline std::string as_text(const std::vector<std::byte>& bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

inline std::span<const std::byte> as_bytes(const std::string& text) {
  return std::as_bytes(std::span{text.data(), text.size()});
}

template <class Buffer>
std::string_view text_of(const Buffer& b) {
  if constexpr (requires { b.GetString(); })
    return {b.GetString(), b.GetSize()};
  else
    return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// A way that turns Status into bytes, stored as a string (text, or Base64 of binary).
template <class Way>
void add_peer_way(std::vector<way_a>& ways, std::string name, std::string stored_as, bool base64) {
  if constexpr (!Way::found) {
    skip<Way>();
  } else {
    struct buffers {
      typename Way::buffer encoded;
      std::string text;
      std::vector<std::byte> bytes;
    };
    auto b = std::make_shared<buffers>();
    way_a way;
    way.name = std::move(name);
    way.library = Way::library;
    way.stored_as = std::move(stored_as);
    way.save = [b, base64](savekit::prefs& p, const Status& s) {
      Way::write(s, b->encoded);
      std::string_view encoded = text_of(b->encoded);
      if (base64) {
        savekit::base64_encode(std::as_bytes(std::span{encoded.data(), encoded.size()}), b->text);
        check(p.set_string("status", b->text), "set_string");
      } else {
        check(p.set_string("status", encoded), "set_string");
      }
    };
    way.load = [b, base64](const savekit::prefs& p, Status& s) {
      auto text = p.try_get_string("status");
      if (!text) die("load: " + text.error().to_string());
      if (base64) {
        check(savekit::base64_decode(*text, b->bytes), "base64_decode");
        *text = std::string(reinterpret_cast<const char*>(b->bytes.data()), b->bytes.size());
      }
      if (!Way::read(*text, s)) die(std::string(Way::name) + ": read failed");
    };
    ways.push_back(std::move(way));
  }
}

// simdjson only reads: the save is savekit's JSON, padded into simdjson's buffer to load.
template <class Way>
void add_read_only_way(std::vector<way_a>& ways, std::string name) {
  if constexpr (!Way::found) {
    skip<Way>();
  } else {
    auto padded = std::make_shared<typename Way::buffer>();
    ways.push_back(
        {std::move(name), Way::library, "JSON text",
         [](savekit::prefs& p, const Status& s) { check(p.set("status", s, savekit::object_encoding::json), "set"); },
         [padded](const savekit::prefs& p, Status& s) {
           auto stored = p.get_raw("status");  // the JSON text savekit stored
           if (!stored) die(stored.error().to_string());
           *padded = typename Way::buffer(stored->bytes);
           if (!Way::read(*padded, s)) die(std::string(Way::name) + ": read failed");
         },
         true});
  }
}

inline std::vector<way_a> study_a_ways() {
  using namespace bench::ways;
  std::vector<way_a> ways;

  // The seed's baseline: eleven keys, one per field.
  ways.push_back({"non Serialize (11 keys)", "savekit::prefs", "11 int/string entries",
                  [](savekit::prefs& p, const Status& s) { check(bench::set_per_key(p, s), "set"); },
                  [](const savekit::prefs& p, Status& s) { bench::get_per_key(p, s); }});

  // savekit's store takes the object itself, in each encoding.
  auto savekit_object = [](std::string name, savekit::object_encoding f, std::string stored_as) {
    return way_a{std::move(name), "savekit", std::move(stored_as),
                 [f](savekit::prefs& p, const Status& s) { check(p.set("status", s, f), "set"); },
                 [](const savekit::prefs& p, Status& s) { check(p.get_into("status", s), "get_into"); }};
  };
  ways.push_back(savekit_object("savekit JSON", savekit::object_encoding::json, "JSON text"));
  ways.push_back(savekit_object("savekit MessagePack map", savekit::object_encoding::msgpack, "bytes (byte-clean)"));
  ways.push_back(
      savekit_object("savekit MessagePack compact", savekit::object_encoding::msgpack_compact, "bytes (byte-clean)"));
  // The same bytes as savekit's compact form, by the hand-written codec, through the same
  // store: the least code for the job (bench/status_floor.hpp), savekit's floor in each engine.
  {
    auto buffer = std::make_shared<std::vector<std::byte>>();
    ways.push_back({"hand-written compact codec", "hand-written", "bytes (byte-clean)",
                    [buffer](savekit::prefs& p, const Status& s) {
                      status_floor::floor_write(s, *buffer);
                      check(p.set_bytes("status", *buffer), "set_bytes");
                    },
                    [buffer](const savekit::prefs& p, Status& s) {
                      check(p.get_bytes_into("status", *buffer), "get_bytes_into");
                      const auto* bytes = reinterpret_cast<const unsigned char*>(buffer->data());
                      if (!status_floor::floor_read(bytes, bytes + buffer->size(), s))
                        die("hand-written compact codec: read failed");
                    }});
  }
  using savekit_msgpack_base64 = savekit_msgpack_as_text<text_of_msgpack::base64>;
  using savekit_msgpack_json = savekit_msgpack_as_text<text_of_msgpack::json>;
  add_peer_way<savekit_msgpack_base64>(ways, savekit_msgpack_base64::name, "Base64 text", false);
  add_peer_way<savekit_msgpack_json>(ways, savekit_msgpack_json::name, "JSON text (transcoded)", false);

  add_peer_way<nlohmann_json>(ways, "nlohmann/json", "JSON text", false);
  add_peer_way<rapidjson_dom>(ways, "RapidJSON", "JSON text", false);
#ifdef SAVEKIT_STUDY_A_ALL_PEERS
  add_peer_way<jsoncpp_value>(ways, "jsoncpp", "JSON text", false);
  add_peer_way<cereal_json>(ways, "cereal JSON", "JSON text", false);
  add_peer_way<msgpack_cxx>(ways, "msgpack-cxx / Base64", "Base64 text", true);
  add_peer_way<cereal_binary>(ways, "cereal binary / Base64", "Base64 text", true);
  add_peer_way<boost_binary>(ways, "Boost.Serialization binary / Base64", "Base64 text", true);
  add_read_only_way<simdjson_ondemand>(ways, "simdjson On-Demand (load)");
#endif
  return ways;
}

}  // namespace bench::study_a
