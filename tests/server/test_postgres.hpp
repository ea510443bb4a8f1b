// A real PostgreSQL for the tests: Debian's postgresql-15 binaries, a cluster made with
// initdb in a temporary folder, listening on 127.0.0.1 at a free port, stopped and removed
// afterwards. PostgreSQL refuses to run as root: as root the commands run as the
// `postgres` user (runuser), the folder given to it.
#pragma once

#include <libpq-fe.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server_process.hpp"

namespace test_server {

inline int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t size = sizeof a;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size) == 0)
    port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

class test_postgres {
 public:
  static std::unique_ptr<test_postgres> start(std::string& problem) {
    auto pg = std::unique_ptr<test_postgres>(new test_postgres);
    for (const auto& entry : std::filesystem::directory_iterator(
             "/usr/lib/postgresql", std::filesystem::directory_options::skip_permission_denied))
      if (std::filesystem::exists(entry.path() / "bin" / "pg_ctl")) pg->bin_ = entry.path() / "bin";
    if (pg->bin_.empty()) {
      problem = "no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (Debian: postgresql-15)";
      return nullptr;
    }
    std::string pattern = (std::filesystem::temp_directory_path() / "savekit-pg-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
      problem = "mkdtemp failed";
      return nullptr;
    }
    pg->root_ = pattern;
    if (::geteuid() == 0) {
      const passwd* user = ::getpwnam("postgres");
      if (!user) {
        problem = "running as root, and there is no postgres user to run PostgreSQL as";
        return nullptr;
      }
      if (::chown(pg->root_.c_str(), user->pw_uid, user->pw_gid) != 0) {
        problem = "cannot give the cluster's folder to postgres";
        return nullptr;
      }
      pg->as_postgres_ = true;
    }
    std::string output;
    if (pg->run({(pg->bin_ / "initdb").string(), "-D", pg->data().string(), "-U", "postgres", "-A", "trust", "-E",
                 "UTF8", "--locale=C", "--no-sync"},
                output) != 0) {
      problem = "initdb failed: " + output;
      return nullptr;
    }
    pg->port_ = free_port();
    if (!pg->start_server(problem)) return nullptr;
    return pg;
  }

  ~test_postgres() {
    std::string ignored;
    stop_server(ignored);
    std::error_code e;
    std::filesystem::remove_all(root_, e);
  }

  int port() const { return port_; }
  std::string url(const std::string& database = "postgres") const {
    return "postgresql://postgres@127.0.0.1:" + std::to_string(port_) + "/" + database + "?connect_timeout=5";
  }

  bool start_server(std::string& problem) {
    std::string output;
    const std::string settings = "-c listen_addresses=127.0.0.1 -c port=" + std::to_string(port_) +
                                 " -c unix_socket_directories=" + root_.string() + " -c max_connections=300";
    if (run({(bin_ / "pg_ctl").string(), "-D", data().string(), "-l", (root_ / "server.log").string(), "-w", "-t", "60",
             "-o", settings, "start"},
            output) != 0) {
      problem = "pg_ctl start failed: " + output + read_text(root_ / "server.log");
      return false;
    }
    return true;
  }
  bool stop_server(std::string& problem, const std::string& mode = "fast") {
    std::string output;
    if (run({(bin_ / "pg_ctl").string(), "-D", data().string(), "-m", mode, "-w", "-t", "60", "stop"}, output) != 0) {
      problem = "pg_ctl stop failed: " + output;
      return false;
    }
    return true;
  }

  // Sends sig to the postmaster and every process it started (SIGSTOP stands in for a
  // database host that hangs or is cut off).
  void signal_all(int sig) {
    const pid_t postmaster = std::atoi(read_text(data() / "postmaster.pid").c_str());
    if (postmaster <= 0) return;
    ::kill(postmaster, sig);
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      const std::string name = entry.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      const std::string stat = read_text(entry.path() / "stat");
      const std::size_t close = stat.rfind(')');
      if (close == std::string::npos) continue;
      int parent = 0;
      char state = 0;
      if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &parent) == 2 && parent == postmaster)
        ::kill(std::atoi(name.c_str()), sig);
    }
  }

  // A fresh database (for a test that needs an empty schema).
  bool create_database(const std::string& name, std::string& problem) {
    PGconn* c = PQconnectdb(url().c_str());
    bool ok = PQstatus(c) == CONNECTION_OK;
    if (ok) {
      PGresult* r = PQexec(c, ("CREATE DATABASE " + name).c_str());
      ok = PQresultStatus(r) == PGRES_COMMAND_OK;
      if (!ok) problem = PQerrorMessage(c);
      PQclear(r);
    } else {
      problem = PQerrorMessage(c);
    }
    PQfinish(c);
    return ok;
  }

  // One statement's first value, as text (checks from outside the server).
  std::string query(const std::string& database, const std::string& sql) {
    PGconn* c = PQconnectdb(url(database).c_str());
    std::string out;
    if (PQstatus(c) == CONNECTION_OK) {
      PGresult* r = PQexec(c, sql.c_str());
      if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0) out = PQgetvalue(r, 0, 0);
      PQclear(r);
    }
    PQfinish(c);
    return out;
  }

 private:
  test_postgres() = default;
  std::filesystem::path data() const { return root_ / "data"; }
  int run(std::vector<std::string> argv, std::string& output) {
    if (as_postgres_) argv.insert(argv.begin(), {"/usr/sbin/runuser", "-u", "postgres", "--"});
    argv.push_back("2>&1");
    std::string line;
    for (const std::string& a : argv) line += (a == "2>&1" ? a : "'" + a + "'") + " ";
    output.clear();
    FILE* p = ::popen(line.c_str(), "r");
    if (!p) return -1;
    char buffer[4096];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, p)) > 0) output.append(buffer, n);
    const int status = ::pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  std::filesystem::path bin_, root_;
  bool as_postgres_ = false;
  int port_ = 0;
};

}  // namespace test_server
