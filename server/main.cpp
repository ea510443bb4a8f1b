// savekit-server — cloud saves for many players over HTTP (docs/server.md).
//
//   savekit-server secret -o server.secret                     a new random signing secret
//   savekit-server token --player ID --ttl 30d --secret-file F  prints a bearer token
//   savekit-server serve --listen 127.0.0.1:8080 --db sqlite:saves.db --secret-file F
//
// Exit codes: 0 success (serve: stopped by SIGTERM or SIGINT after answering what was in
// flight), 1 failure (the reason on standard error), 2 usage.
#include <CLI/CLI.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "standard_descriptors.hpp"

#include "api.hpp"
#include "auth.hpp"
#include "http_server.hpp"
#include "log.hpp"
#include "slot_store.hpp"

namespace {

using namespace savekit::server;

int fail(const std::string& message) {
  std::fprintf(stderr, "savekit-server: %s\n", message.c_str());
  return 1;
}

std::chrono::milliseconds seconds_option(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
}

bool stdout_open = true;  // when the program started

int cmd_secret(const std::string& output) {
  auto secret = token_secret::generate();
  if (!secret) return fail(secret.error().to_string());
  const std::string line = secret->base64() + "\n";
  if (output.empty() || output == "-") {
    if (!stdout_open) return fail("standard output is closed: give -o FILE");
    std::fputs(line.c_str(), stdout);
    return std::fflush(stdout) == 0 ? 0 : fail("cannot write to standard output");
  }
  // Readable by its owner only, from the start, and never through a link or over a file:
  // a new file beside the target, synced, then linked to its name (link never replaces an
  // existing file, so a secret in use — every token signed with it — is never lost).
  const std::string temporary = output + ".new";
  ::unlink(temporary.c_str());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return fail("cannot create " + temporary + ": " + std::strerror(errno));
  const bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) && ::fsync(fd) == 0;
  ::close(fd);
  const int linked = written ? ::link(temporary.c_str(), output.c_str()) : -1;
  const int link_error = errno;
  ::unlink(temporary.c_str());
  if (linked != 0 && written && link_error == EEXIST)
    return fail(output +
                " exists: a secret is never replaced (every token signed with it would stop working); "
                "write the new one elsewhere and switch --secret-file when its tokens should end");
  if (linked != 0) return fail("cannot write " + output + ": " + std::strerror(written ? link_error : EIO));
  return 0;
}

int cmd_token(const std::string& secret_file, const std::string& player, const std::string& ttl) {
  auto secret = token_secret::from_file(secret_file);
  if (!secret) return fail(secret.error().message());
  auto lifetime = parse_duration(ttl);
  if (!lifetime) return fail("--ttl: " + lifetime.error().message());
  auto token = issue_token(*secret, player, std::chrono::system_clock::now() + *lifetime);
  if (!token) return fail("--player: " + token.error().message());
  if (!stdout_open) return fail("standard output is closed: the token would go nowhere");
  std::printf("%s\n", token->c_str());
  return std::fflush(stdout) == 0 ? 0 : fail("cannot write to standard output");
}

}  // namespace

int main(int argc, char** argv) {
  // First of all, before anything opens a file.
  // (Started with them closed, the server opened its next files there: a PostgreSQL
  // connection as standard error took every log line into its protocol.)
  stdout_open = ::fcntl(STDOUT_FILENO, F_GETFD) != -1;
  if (!savekit_tools::make_standard_descriptors_valid()) return 1;
  // A log reader that exits (a pipe to tee, a log shipper restarting) must not end the
  // server: a log line that cannot be written is dropped (SIGPIPE would kill). And a file
  // size limit (ulimit -f) makes a write fail (503), not the process end (SIGXFSZ).
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{"savekit-server: cloud saves for many players over HTTP (docs/server.md)"};
  app.set_help_flag("--help", "Print this help message and exit");
  app.require_subcommand(1);
  app.footer("Exit codes: 0 success, 1 failure, 2 usage.");

  std::string output;
  auto* secret_cmd = app.add_subcommand("secret", "Write a new random secret that signs tokens (32 bytes, Base64)");
  secret_cmd->add_option("-o,--output", output, "the secret file (made readable by its owner only; default: stdout)");

  std::string secret_file, player, ttl = "30d";
  auto* token_cmd = app.add_subcommand("token", "Print a bearer token for one player");
  token_cmd->add_option("--player", player, "the player id the token names (1 to 128 bytes of UTF-8)")->required();
  token_cmd->add_option("--ttl", ttl, "how long it is valid: 30d, 12h, 15m, 90s (default 30d)");
  token_cmd->add_option("--secret-file", secret_file, "the server's secret (savekit-server secret)")->required();

  http_options http;
  api_limits limits;
  store_options pool;
  std::string db = "sqlite:saves.db";
  double header_timeout = 10, body_timeout = 60, idle_timeout = 30, shutdown_timeout = 20;
  auto* serve_cmd = app.add_subcommand("serve", "Serve the HTTP API until SIGTERM or SIGINT");
  serve_cmd->add_option("--listen", http.listen,
                        "HOST:PORT to listen on; port 0 picks a free one (default 127.0.0.1:8080)");
  serve_cmd->add_option("--db", db,
                        "sqlite:PATH (the default, sqlite:saves.db: WAL, synchronous=FULL) or postgresql://… (a "
                        "libpq URI; any number of servers may share it)");
  serve_cmd->add_option("--secret-file", secret_file, "the secret that signs tokens (savekit-server secret)")
      ->required();
  serve_cmd->add_option("--port-file", http.port_file, "write the bound port here once listening");
  serve_cmd->add_option("--tls-cert", http.tls_cert, "PEM certificate chain: serve HTTPS (with --tls-key)");
  serve_cmd->add_option("--tls-key", http.tls_key, "PEM private key of --tls-cert");
  serve_cmd->add_option("--max-save-bytes", limits.max_save_bytes, "largest save accepted, in bytes (default 16 MiB)");
  serve_cmd->add_option("--max-slots", limits.max_slots, "live slots per player (default 100)");
  serve_cmd->add_option("--max-player-bytes", limits.max_player_bytes,
                        "bytes of saves a player keeps, counting every version kept for restore of their live "
                        "slots (default 0: no limit)");
  serve_cmd->add_option("--max-meta-bytes", limits.max_meta_bytes, "largest Savekit-Meta, decoded (default 16 KiB)");
  serve_cmd->add_option("--keep-versions", limits.keep_versions, "versions kept per slot for restore (default 5)")
      ->check(CLI::Range(1u, 1000u));
  std::string keep_write_ids = "30d";
  serve_cmd->add_option("--keep-write-ids", keep_write_ids,
                        "how long a Savekit-Write-Id is remembered, so that a write sent again is answered as the "
                        "first time: 30d, 12h, ... (default 30d)");
  serve_cmd
      ->add_option("--write-ids-per-slot", limits.write_ids_per_slot,
                   "a slot remembers the write ids of its newest this many versions at most (default 1000)")
      ->check(CLI::Range(1u, 1000000u));
  serve_cmd->add_option("--rate", limits.rate_per_second,
                        "requests per second per player and server process, 0 for no limit (default 20)");
  serve_cmd->add_option("--burst", limits.burst, "requests a player may send at once above --rate (default 40)")
      ->check(CLI::Range(1.0, 1e9));
  serve_cmd->add_option("--max-header-bytes", http.max_header_bytes, "all of a request's headers (default 32 KiB)");
  serve_cmd->add_option("--header-timeout", header_timeout, "seconds to send a request's headers (default 10)");
  serve_cmd->add_option("--body-timeout", body_timeout, "seconds to send a body or receive an answer (default 60)");
  serve_cmd->add_option("--idle-timeout", idle_timeout, "seconds a kept-alive connection may wait (default 30)");
  serve_cmd->add_option("--shutdown-timeout", shutdown_timeout,
                        "seconds a stop waits for requests in flight (default 20)");
  serve_cmd->add_option("--max-connections", http.max_connections, "open connections at once (default 1024)");
  serve_cmd->add_option("--io-threads", http.io_threads, "threads for connections (default 2)");
  serve_cmd->add_option("--workers", http.worker_threads, "threads for requests and the database (default 8)");
  serve_cmd->add_option("--db-pool", pool.pool_size, "PostgreSQL connections (default 8)");
  double db_timeout = 10;
  serve_cmd->add_option("--db-timeout", db_timeout,
                        "seconds to wait for PostgreSQL's answer before a request is 503 (default 10)");
  serve_cmd->add_option("--max-inflight-bytes", http.max_inflight_bytes,
                        "bytes of bodies held at once over all connections; past it 503 (default 256 MiB)");
  serve_cmd->add_option("--max-player-inflight-bytes", http.max_player_inflight_bytes,
                        "bytes of bodies one player's requests may hold at once (at least one body always goes); "
                        "past it 429 (default 32 MiB)");
  serve_cmd->add_option("--cors-origin", http.cors_origins,
                        "an origin whose web pages may call the API (CORS), e.g. https://game.example, or *; "
                        "repeat for several (default: none)");
  serve_cmd->add_option("--min-rate", http.min_rate,
                        "bytes per second a body or an answer must move at, after --body-timeout (default 16384)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (*secret_cmd) return cmd_secret(output);
  if (*token_cmd) return cmd_token(secret_file, player, ttl);

  // The database, its journal and the port file are the server's alone: no other user of
  // the machine reads the players' saves.
  ::umask(077);
  pool.query_timeout_ms = static_cast<std::uint32_t>(std::max(1.0, db_timeout) * 1000);
  logger log;
  http.max_body_bytes = limits.max_save_bytes;
  // The options, checked before anything is opened.
  if (http.max_inflight_bytes < limits.max_save_bytes)
    return fail("--max-inflight-bytes (" + std::to_string(http.max_inflight_bytes) +
                ") must hold at least one save of --max-save-bytes (" + std::to_string(limits.max_save_bytes) + ")");
  if (http.min_rate == 0) return fail("--min-rate is at least 1 byte per second");
  if (http.max_connections == 0) return fail("--max-connections is at least 1");
  // Metadata comes back base64url in one header, which Beast caps at 65,533 bytes.
  if (limits.max_meta_bytes > max_answer_header_value / 4 * 3)
    return fail("--max-meta-bytes is at most " + std::to_string(max_answer_header_value / 4 * 3) +
                ": metadata goes back in one header of an answer");
  for (double seconds : {header_timeout, body_timeout, idle_timeout, shutdown_timeout, db_timeout})
    if (!(seconds > 0)) return fail("a timeout is a number of seconds above 0");
  // Every connection and database connection is a file descriptor: the soft limit goes up
  // to the hard one, and --max-connections comes down to what fits (then the 503 "too many
  // connections" is what a client sees, not an accept that fails).
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0) {
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
    ::getrlimit(RLIMIT_NOFILE, &files);
    const std::uint64_t reserved = 64 + pool.pool_size;
    if (files.rlim_cur != RLIM_INFINITY && http.max_connections + reserved > files.rlim_cur) {
      const std::uint64_t fits = files.rlim_cur > reserved ? files.rlim_cur - reserved : 1;
      log.event("warn", "connections",
                "--max-connections " + std::to_string(http.max_connections) + " is above the open-file limit (" +
                    std::to_string(files.rlim_cur) + "): serving at most " + std::to_string(fits));
      http.max_connections = static_cast<std::uint32_t>(fits);
    }
  }
  auto write_id_lifetime = parse_duration(keep_write_ids);
  if (!write_id_lifetime) return fail("--keep-write-ids: " + write_id_lifetime.error().message());
  limits.keep_write_ids = std::chrono::duration_cast<std::chrono::seconds>(*write_id_lifetime);
  auto secret = token_secret::from_file(secret_file);
  if (!secret) {
    log.event("error", "secret", secret.error().message());
    return 1;
  }
  struct stat st {};
  if (::stat(secret_file.c_str(), &st) == 0 && (st.st_mode & 0077))
    log.event("warn", "secret", "the secret file " + secret_file + " is readable by others than its owner");
  auto store = open_slot_store(db, pool);
  if (!store) {
    log.event("error", "database", store.failure().message);
    return 1;
  }
  log.event("info", "database", std::string{"opened "} + std::string{(*store)->driver()} + " database");
  http.header_timeout = seconds_option(header_timeout);
  http.body_timeout = seconds_option(body_timeout);
  http.idle_timeout = seconds_option(idle_timeout);
  http.shutdown_timeout = seconds_option(shutdown_timeout);
  metrics counters;
  api handler(**store, std::move(*secret), limits, counters);
  return serve(http, handler, counters, log);
}
