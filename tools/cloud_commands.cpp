// The savekit program's cloud sync commands (cloud_commands.hpp).
#include "cloud_commands.hpp"

#include <savekit/cloud.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <optional>

#include "cli_common.hpp"
#include "cli_files.hpp"

namespace savekit_cli {

namespace {

struct cloud_options {
  std::string folder, slot, policy, url, token_file, device, keep;
  bool json = false;
};

// What the JSON output says of a slot and of a run.
struct slot_line {
  std::string name, outcome;
  std::optional<std::string> settled = {}, copy = {}, error = {}, server_code = {};
  std::uint64_t version = 0;
  std::optional<int> http_status = {};
};
struct run_lines {
  std::vector<slot_line> slots;
  std::uint32_t requests = 0;
  bool all_synced = false;
  std::vector<std::string> unreadable_entries = {};
};
struct state_line {
  std::string name, state;
  std::uint64_t baseline_version = 0, remote_version = 0;
  std::optional<std::string> remote_device = {}, last_error = {};
  bool remote_deleted = false;
};
struct status_lines {
  std::vector<state_line> slots;
};

std::string default_device() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "this-device";
  return host;
}

// The token from its file: one line; the file should be private.
savekit::result<std::string> read_token(const std::string& path) {
  auto text = read_input(path);
  if (!text) return std::move(text).error();
  while (!text->empty() && (text->back() == '\n' || text->back() == '\r' || text->back() == ' ')) text->pop_back();
  if (text->empty() || text->find_first_of("\r\n") != std::string::npos)
    return savekit::error{savekit::errc::invalid_value, 0, path + " does not hold one token on one line"};
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && (st.st_mode & 077) != 0) warn(path, "others may read this token: chmod 600 it");
  return *text;
}

// The slots folder and its sync, from the options and what the folder remembers.
struct opened {
  std::unique_ptr<savekit::slots> slots;
  std::unique_ptr<savekit::cloud::sync> sync;
};
savekit::result<opened> open_sync(const cloud_options& o, bool read_only, bool needs_token) {
  opened out;
  auto s = savekit::slots::open(o.folder, {.read_only = read_only, .create_if_missing = !read_only});
  if (!s) return std::move(s).error();
  out.slots = std::make_unique<savekit::slots>(std::move(*s));
  savekit::cloud::options c;
  auto known = savekit::cloud::remembered(*out.slots);
  if (!known && known.error().code() != savekit::errc::not_found) return std::move(known).error();
  c.url = !o.url.empty() ? o.url : known ? known->url : "";
  c.device = !o.device.empty() ? o.device : known && !known->device.empty() ? known->device : default_device();
  c.token_file = !o.token_file.empty() ? o.token_file : known ? known->token_file : "";
  if (c.url.empty())
    return savekit::error{savekit::errc::invalid_value, 0, "this folder was never synced: give --url and --token-file"};
  if (needs_token) {
    if (c.token_file.empty()) return savekit::error{savekit::errc::invalid_value, 0, "give --token-file"};
    auto token = read_token(c.token_file);
    if (!token) return std::move(token).error();
    c.token = std::move(*token);
  }
  auto sync = savekit::cloud::sync::open(*out.slots, c);
  if (!sync) return std::move(sync).error();
  out.sync = std::make_unique<savekit::cloud::sync>(std::move(*sync));
  return out;
}

int cmd_sync(const cloud_options& o) {
  std::optional<savekit::cloud::policy> p;
  if (!o.policy.empty()) {
    p = savekit::cloud::policy_named(o.policy);
    if (!p || *p == savekit::cloud::policy::callback) {
      std::fprintf(stderr, "savekit: --policy: keep_both, prefer_local, prefer_remote, newest or ask\n");
      return usage;
    }
  }
  auto c = open_sync(o, false, true);
  if (!c) return report(o.folder, c.error());
  auto r = !o.slot.empty() ? c->sync->run(o.slot, p) : p ? c->sync->run(*p) : c->sync->run();
  if (!r)
    return r.error().code() == savekit::errc::network ? (report(o.folder, r.error()), network_failed)
                                                      : report(o.folder, r.error());
  int code = ok;
  auto worse = [&](int c2) {
    auto rank = [](int x) { return x == failure ? 3 : x == network_failed ? 2 : x == conflict_met ? 1 : 0; };
    if (rank(c2) > rank(code)) code = c2;
  };
  run_lines lines{{}, r->requests, r->all_synced()};
  output out;
  for (const auto& s : r->slots) {
    slot_line l{s.name, std::string{savekit::cloud::to_string(s.what)}};
    l.version = s.version;
    if (s.settled) l.settled = std::string{savekit::cloud::to_string(*s.settled)};
    if (!s.copy.empty()) l.copy = s.copy;
    if (s.error) l.error = s.error->message();
    if (!s.server_code.empty()) l.server_code = s.server_code;
    if (s.http_status) l.http_status = s.http_status;
    if (s.what == savekit::cloud::outcome::conflict) worse(conflict_met);
    if (s.error) worse(s.error->code() == savekit::errc::network ? network_failed : failure);
    if (!o.json) {
      std::string text = display_key(s.name) + ": " + l.outcome;
      if (l.settled)
        text += " (" + *l.settled + (l.copy ? ": the other save is now " + display_key(*l.copy) : "") + ")";
      if (s.deleted_here) text += " here";
      if (s.version) text += ", server version " + std::to_string(s.version);
      if (l.error) text += ": " + terminal_safe(*l.error, false);
      out.write(text + "\n");
    }
    lines.slots.push_back(std::move(l));
  }
  for (const std::string& file : r->unreadable_entries) {
    worse(failure);
    lines.unreadable_entries.push_back(file);
    if (!o.json)
      out.write("an outbox file could not be read; it was not sent and is kept as " + terminal_safe(file, false) +
                "\n");
  }
  if (o.json)
    out.write(savekit::to_json(lines, document_options) + "\n");
  else
    out.write(std::to_string(r->requests) + " requests; " + (r->all_synced() ? "all synced" : "not all synced") + "\n");
  return out.finish(code);
}

int cmd_status(const cloud_options& o) {
  struct stat st {};
  if (::stat(o.folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    std::fprintf(stderr, "savekit: no folder %s\n", terminal_safe(o.folder, false).c_str());
    return failure;
  }
  auto c = open_sync(o, true, false);
  if (!c) return report(o.folder, c.error());
  auto states = c->sync->status();
  if (!states) return report(o.folder, states.error());
  status_lines lines;
  output out;
  int code = ok;
  for (const auto& s : *states) {
    state_line l{s.name, std::string{savekit::cloud::to_string(s.state)}, s.baseline_version, s.remote_version};
    if (!s.remote_device.empty()) l.remote_device = s.remote_device;
    if (s.last_error) l.last_error = s.last_error->message();
    l.remote_deleted = s.remote_deleted;
    if (s.state == savekit::cloud::sync_state::conflict) code = conflict_met;
    if (!o.json) {
      std::string text = display_key(s.name) + ": " + l.state;
      if (s.remote && !s.remote_device.empty()) text += " (the server's is from " + display_key(s.remote_device) + ")";
      if (l.last_error) text += "; last sync: " + terminal_safe(*l.last_error, false);
      out.write(text + "\n");
    }
    lines.slots.push_back(std::move(l));
  }
  if (o.json) out.write(savekit::to_json(lines, document_options) + "\n");
  return out.finish(code);
}

int cmd_resolve(const cloud_options& o) {
  savekit::cloud::choice c;
  if (o.keep == "local")
    c = savekit::cloud::choice::keep_local;
  else if (o.keep == "remote")
    c = savekit::cloud::choice::keep_remote;
  else if (o.keep == "both")
    c = savekit::cloud::choice::keep_both;
  else {
    std::fprintf(stderr, "savekit: --keep: local, remote or both\n");
    return usage;
  }
  auto opened = open_sync(o, false, false);
  if (!opened) return report(o.folder, opened.error());
  if (auto done = opened->sync->resolve(o.slot, c); !done) return report(o.folder + ": " + o.slot, done.error());
  return ok;
}

}  // namespace

void setup_cloud_commands(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<cloud_options>();
  auto* cloud = app.add_subcommand("cloud", "Sync a slots folder with savekit-server (savekit/cloud.hpp)");
  cloud->require_subcommand(1);
  auto* status = cloud->add_subcommand("status", "Where each slot stands since the last sync (sends nothing)");
  status->add_option("DIR", o->folder, "slots folder")->required();
  status->add_flag("--json", o->json, "machine-readable output");
  status->callback([o, &exit_code] { exit_code = cmd_status(*o); });
  auto* sync = cloud->add_subcommand("sync", "Push and pull every slot (or one), settling conflicts by the policy");
  sync->add_option("DIR", o->folder, "slots folder (created if missing: a new device)")->required();
  sync->add_option("SLOT", o->slot, "only this slot");
  sync->add_option("--policy", o->policy, "keep_both (default), prefer_local, prefer_remote, newest or ask");
  sync->add_option("--url", o->url, "the server (remembered per folder)");
  sync->add_option("--token-file", o->token_file, "a file holding the player's token (its path is remembered)");
  sync->add_option("--device", o->device, "this device's name, shown on the others (default: the host name)");
  sync->add_flag("--json", o->json, "machine-readable output");
  sync->callback([o, &exit_code] { exit_code = cmd_sync(*o); });
  auto* resolve = cloud->add_subcommand("resolve", "Settle an open conflict, offline");
  resolve->add_option("DIR", o->folder, "slots folder")->required();
  resolve->add_option("SLOT", o->slot, "slot name")->required();
  resolve->add_option("--keep", o->keep, "local, remote or both")->required();
  resolve->callback([o, &exit_code] { exit_code = cmd_resolve(*o); });
}

}  // namespace savekit_cli
