// Study A's ways of saving the seed's Status into a PlayerPrefs-style store, shared by the
// native study (seed_studies.cpp) and the WebAssembly one (web/study_a_wasm.cpp), so that
// the two time the same code. Peers that need compiled libraries or exceptions (jsoncpp,
// cereal, msgpack-cxx, Boost, simdjson) exist only natively: SAVEKIT_STUDY_A_ALL_PEERS.
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
#include "peers/rapidjson.hpp"
#include "per_key.hpp"
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
  std::string library;  // whose code serializes
  std::string stored_as;
  std::function<void(savekit::prefs&, const Status&)> save;  // null: the library cannot serialize
  std::function<void(const savekit::prefs&, Status&)> load;
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

// A peer that turns Status into bytes, stored as a string (text, or Base64 of binary).
template <class Way>
way_a peer_way(std::string name, std::string stored_as, bool base64) {
  struct buffers {
    typename Way::buffer encoded;
    std::string text;
    std::vector<std::byte> bytes;
  };
  auto b = std::make_shared<buffers>();
  way_a way;
  way.name = std::move(name);
  way.library = Way::name;
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
  return way;
}

inline std::vector<way_a> study_a_ways() {
  using namespace bench::ways;
  std::vector<way_a> ways;

  // The seed's baseline: eleven keys, one per field.
  ways.push_back({"non Serialize (11 keys)", "savekit::prefs", "11 int/string entries",
                  [](savekit::prefs& p, const Status& s) { check(bench::set_per_key(p, s), "set"); },
                  [](const savekit::prefs& p, Status& s) { bench::get_per_key(p, s); }});

  auto savekit_object = [](std::string name, savekit::object_encoding f, std::string stored_as) {
    return way_a{std::move(name), "savekit", std::move(stored_as),
                 [f](savekit::prefs& p, const Status& s) { check(p.set("status", s, f), "set"); },
                 [](const savekit::prefs& p, Status& s) { check(p.get_into("status", s), "get_into"); }};
  };
  ways.push_back(savekit_object("savekit JSON", savekit::object_encoding::json, "JSON text"));
  ways.push_back(savekit_object("savekit MessagePack map", savekit::object_encoding::msgpack, "bytes (byte-clean)"));
  ways.push_back(
      savekit_object("savekit MessagePack compact", savekit::object_encoding::msgpack_compact, "bytes (byte-clean)"));
  {
    auto packed = std::make_shared<std::vector<std::byte>>();
    auto text = std::make_shared<std::string>();
    ways.push_back({"savekit MessagePack / Base64", "savekit", "Base64 text",
                    [packed, text](savekit::prefs& p, const Status& s) {
                      savekit::to_msgpack(s, *packed, {.form = savekit::msgpack_form::compact});
                      savekit::base64_encode(*packed, *text);
                      check(p.set_string("status", *text), "set_string");
                    },
                    [packed](const savekit::prefs& p, Status& s) {
                      auto stored = p.try_get_string("status");
                      if (!stored) die(stored.error().to_string());
                      check(savekit::base64_decode(*stored, *packed), "base64_decode");
                      check(savekit::from_msgpack(*packed, s), "from_msgpack");
                    }});
    auto json = std::make_shared<std::string>();
    auto packed2 = std::make_shared<std::vector<std::byte>>();
    ways.push_back({"savekit MessagePack / JSON", "savekit", "JSON text (transcoded)",
                    [packed2, json](savekit::prefs& p, const Status& s) {
                      savekit::to_msgpack(s, *packed2, {.form = savekit::msgpack_form::map});
                      check(savekit::msgpack_to_json(*packed2, *json), "msgpack_to_json");
                      check(p.set_string("status", *json), "set_string");
                    },
                    [packed2](const savekit::prefs& p, Status& s) {
                      auto stored = p.try_get_string("status");
                      if (!stored) die(stored.error().to_string());
                      check(savekit::json_to_msgpack(*stored, *packed2), "json_to_msgpack");
                      check(savekit::from_msgpack(*packed2, s), "from_msgpack");
                    }});
  }
  ways.push_back(peer_way<nlohmann_json>("nlohmann/json", "JSON text", false));
  ways.push_back(peer_way<rapidjson_dom>("RapidJSON", "JSON text", false));
#ifdef SAVEKIT_STUDY_A_ALL_PEERS
  ways.push_back(peer_way<jsoncpp_value>("jsoncpp", "JSON text", false));
  ways.push_back(peer_way<cereal_json>("cereal JSON", "JSON text", false));
  ways.push_back(peer_way<msgpack_cxx>("msgpack-cxx / Base64", "Base64 text", true));
  ways.push_back(peer_way<cereal_binary>("cereal binary / Base64", "Base64 text", true));
  ways.push_back(peer_way<boost_binary>("Boost.Serialization binary / Base64", "Base64 text", true));
  {
    // simdjson only reads: the save is savekit's JSON.
    auto padded = std::make_shared<simdjson::padded_string>();
    ways.push_back(
        {"simdjson On-Demand (load)", "simdjson", "JSON text",
         [](savekit::prefs& p, const Status& s) { check(p.set("status", s, savekit::object_encoding::json), "set"); },
         [padded](const savekit::prefs& p, Status& s) {
           auto stored = p.get_raw("status");  // the JSON text savekit stored
           if (!stored) die(stored.error().to_string());
           *padded = simdjson::padded_string(stored->bytes);
           if (!simdjson_ondemand::read(*padded, s)) die("simdjson: read failed");
         }});
  }
#endif
  return ways;
}

}  // namespace bench::study_a
