// What the model-based and kill tests check after a history of writes, deletions, syncs and
// faults: every save that mattered can still be found (a generation on some device, or a
// version on the server), and once the devices have synced in peace they hold the same
// slots with the same newest saves, all synced. Saves are told apart by a marker each
// write puts in the hero's name ("[A7]": device A's 7th write), found in the raw bytes.
#pragma once

#include <savekit/detail/percent_encode.hpp>

#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "cloud_fixture.hpp"

namespace test_cloud {

// The markers in a payload's bytes (MessagePack keeps strings as written).
inline std::set<std::string> markers_in(const std::string& bytes) {
  static const std::regex marker(R"(\[[A-Z][0-9]+\])");
  std::set<std::string> out;
  for (auto it = std::sregex_iterator(bytes.begin(), bytes.end(), marker); it != std::sregex_iterator(); ++it)
    out.insert(it->str());
  return out;
}

// The marker of a slot's newest save on a device ("" if it has none).
inline std::string newest_marker(savekit::slots& s, const std::string& name) {
  auto p = s.read_payload(name);
  if (!p) return {};
  std::set<std::string> m = markers_in(p->bytes);
  return m.empty() ? std::string{} : *m.begin();
}

// Every marker a device can bring back: each kept generation of each slot it lists.
inline std::set<std::string> markers_on_device(savekit::slots& s) {
  std::set<std::string> out;
  auto menu = s.list();
  EXPECT_TRUE(menu) << menu.error().to_string();
  if (!menu) return out;
  for (const savekit::slot_info& slot : *menu) {
    auto gens = s.history(slot.name);
    if (!gens) continue;
    for (const savekit::generation_info& g : *gens) {
      auto p = s.read_generation(slot.name, g.generation);
      if (p) out.merge(markers_in(p->bytes));
    }
  }
  return out;
}

// The names of a JSON list's entries ("name":"...") and the numbers after "version".
inline std::vector<std::string> json_strings_after(const std::string& body, const std::string& key) {
  const std::regex field("\"" + key + "\":\"([^\"]*)\"");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(body.begin(), body.end(), field); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1].str());
  return out;
}
inline std::vector<std::string> json_numbers_after(const std::string& body, const std::string& key) {
  const std::regex field("\"" + key + "\":([0-9]+)");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(body.begin(), body.end(), field); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1].str());
  return out;
}

// Every marker the server can bring back for a player: each kept version of each slot,
// deleted slots included.
inline std::set<std::string> markers_on_server(int port, const test_server::header_list& auth) {
  std::set<std::string> out;
  test_server::http_client c(port);
  auto listed = c.request("GET", "/v1/slots?deleted=true", auth);
  EXPECT_EQ(listed.status, 200) << listed.body;
  std::set<std::string> names;
  for (const std::string& n : json_strings_after(listed.body, "name")) names.insert(n);
  for (const std::string& name : names) {
    const std::string slot = "/v1/slots/" + savekit::detail::percent_encode(name);
    auto versions = c.request("GET", slot + "/versions", auth);
    EXPECT_EQ(versions.status, 200) << name << ": " << versions.body;
    for (const std::string& v : json_numbers_after(versions.body, "version")) {
      auto bytes = c.request("GET", slot + "/versions/" + v, auth);
      EXPECT_EQ(bytes.status, 200) << name << " version " << v;
      out.merge(markers_in(bytes.body));
    }
  }
  return out;
}

// The newest marker of every slot a device lists: what the player sees in the load menu.
inline std::map<std::string, std::string> menu_of(savekit::slots& s) {
  std::map<std::string, std::string> out;
  auto menu = s.list();
  EXPECT_TRUE(menu) << menu.error().to_string();
  if (menu)
    for (const savekit::slot_info& slot : *menu) out[slot.name] = newest_marker(s, slot.name);
  return out;
}

}  // namespace test_cloud
