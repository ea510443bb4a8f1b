// savekit-server as the tests run it: a real process (the built binary) on 127.0.0.1 with
// a port it picks itself (--port-file), stopped with SIGTERM or killed with SIGKILL; and
// the tokens and secret files the tests hand it.
#pragma once

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace test_server {

// The binary under test, given by CMake.
inline std::string server_binary() { return SAVEKIT_SERVER_BINARY; }

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs a command line, returns its exit status and standard output.
inline int run_command(const std::vector<std::string>& argv, std::string& output) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return -1;
  const pid_t child = ::fork();
  if (child == 0) {
    ::dup2(pipe_fds[1], 1);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    _exit(127);
  }
  ::close(pipe_fds[1]);
  output.clear();
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0) output.append(buffer, static_cast<std::size_t>(n));
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Whether done() holds within `within`, asked every `pause`: a wait for observed progress.
// It returns as soon as done() holds; the bound is for what never happens (the test then
// fails rather than hangs), not a timing: a loaded machine may take long to get there.
template <class Done>
bool eventually(Done done, std::chrono::milliseconds within = std::chrono::seconds(120),
                std::chrono::milliseconds pause = std::chrono::milliseconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  for (;;) {
    if (done()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
  }
}

// How a server process is started, besides its arguments.
struct launch_options {
  // Standard descriptors (of 0, 1, 2) the server starts with closed, as a launcher or cron
  // may start it (its log is then lost, unless stderr_reader is given and 2 stays open).
  std::vector<int> closed_descriptors = {};
  // A program that reads the server's standard error through a pipe, its own standard
  // output appended to the log: {"/bin/cat"} keeps the log out of the server's own file
  // limits; a reader that exits leaves the server a pipe without a reader.
  std::vector<std::string> stderr_reader = {};
};

class server_process {
 public:
  // Starts savekit-server serve with db, the secret file and more arguments, logging to
  // dir/NAME.log; nullptr (and the log in problem) if it did not listen within 30 s.
  static std::unique_ptr<server_process> start(const std::filesystem::path& dir, const std::string& name,
                                               const std::string& db, const std::string& secret_file,
                                               const std::vector<std::string>& more, std::string& problem,
                                               const launch_options& how = {}) {
    auto s = std::unique_ptr<server_process>(new server_process);
    s->port_file_ = dir / (name + ".port");
    s->log_file_ = dir / (name + ".log");
    std::filesystem::remove(s->port_file_);
    std::vector<std::string> argv = {server_binary(), "serve",     "--listen",    "127.0.0.1:0",         "--db", db,
                                     "--secret-file", secret_file, "--port-file", s->port_file_.string()};
    argv.insert(argv.end(), more.begin(), more.end());
    // The pipe to the reader: neither end stays open here or in the server but the one each
    // needs, so that the reader's exit leaves the server's writes without a reader.
    int to_reader[2] = {-1, -1};
    if (!how.stderr_reader.empty()) {
      if (::pipe2(to_reader, O_CLOEXEC) != 0) {
        problem = "pipe2 failed";
        return nullptr;
      }
      s->reader_pid_ = ::fork();
      if (s->reader_pid_ == 0) {
        const int log = ::open(s->log_file_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        ::dup2(to_reader[0], 0);
        ::dup2(log, 1);
        ::dup2(log, 2);
        std::vector<char*> args;
        for (const std::string& a : how.stderr_reader) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execv(args[0], args.data());
        _exit(127);
      }
    }
    const pid_t test_program = ::getpid();
    s->pid_ = ::fork();
    if (s->pid_ == 0) {
      // A test program that dies (a sanitizer's report, a crash) takes its servers with it,
      // and none holds ctest's output pipe: ctest waits for that pipe to close, and a
      // server left running once made two tests wait out their whole 900 s timeout.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != test_program) _exit(127);
      const int log = ::open(s->log_file_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      ::dup2(log, 1);
      if (to_reader[1] >= 0) {
        ::dup2(to_reader[1], 2);
      } else {
        ::dup2(log, 2);
      }
      ::close(log);
      for (int fd : how.closed_descriptors) ::close(fd);
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      _exit(127);
    }
    for (int fd : to_reader)
      if (fd >= 0) ::close(fd);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      if (std::filesystem::exists(s->port_file_)) {
        s->port_ = std::atoi(read_text(s->port_file_).c_str());
        if (s->port_ > 0) return s;
      }
      int status = 0;
      if (::waitpid(s->pid_, &status, WNOHANG) == s->pid_) {
        s->pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    problem = "savekit-server did not start: " + read_text(s->log_file_);
    return nullptr;
  }

  // A server built with sanitizers that found something fails the test program, loudly.
  ~server_process() {
    if (pid_ > 0) kill9();
    if (reader_pid_ > 0 && !reader_exited(std::chrono::seconds(5))) {  // it reads to the end of the pipe
      ::kill(reader_pid_, SIGKILL);
      ::waitpid(reader_pid_, nullptr, 0);
    }
    const std::string text = log();
    if (text.find("ERROR: AddressSanitizer") != std::string::npos || text.find("runtime error:") != std::string::npos ||
        text.find("ERROR: LeakSanitizer") != std::string::npos) {
      std::fprintf(stderr, "savekit-server reported a sanitizer error:\n%s\n", text.c_str());
      std::abort();
    }
  }

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::string log() const { return read_text(log_file_); }
  // Whether the log shows `text` within timeout: a line may be written just after the
  // client saw its effect (a connection closed at a deadline is logged once closed). It
  // returns as soon as the line is there: the long default is a bound for a line that
  // never comes, not a timing (a loaded machine may take seconds to write it).
  bool log_shows(std::string_view text, std::chrono::milliseconds timeout = std::chrono::seconds(60)) const {
    return log_shows_times(1, text, timeout);
  }
  // Whether the log shows `text` at least `times` times within timeout.
  bool log_shows_times(std::size_t times, std::string_view text,
                       std::chrono::milliseconds timeout = std::chrono::seconds(60)) const {
    return eventually([&] { return log_count(text) >= times; }, timeout);
  }
  // How many times the log shows `text` now.
  std::size_t log_count(std::string_view text) const {
    const std::string all = log();
    std::size_t n = 0;
    for (std::size_t at = all.find(text); at != std::string::npos; at = all.find(text, at + text.size())) ++n;
    return n;
  }

  // Whether the stderr_reader has exited within timeout.
  bool reader_exited(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (reader_pid_ <= 0) return true;
      if (::waitpid(reader_pid_, nullptr, WNOHANG) == reader_pid_) {
        reader_pid_ = -1;
        return true;
      }
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  // SIGTERM, then the exit status (-1 if it did not exit within timeout: then SIGKILL).
  int stop(std::chrono::seconds timeout = std::chrono::seconds(30)) {
    if (pid_ <= 0) return -1;
    ::kill(pid_, SIGTERM);
    return wait(timeout);
  }
  int wait(std::chrono::seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill9();
    return -1;
  }
  void kill9() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

 private:
  server_process() = default;
  std::filesystem::path port_file_, log_file_;
  pid_t pid_ = -1;
  pid_t reader_pid_ = -1;
  int port_ = 0;
};

// A secret file and tokens, made with the server's own commands.
struct credentials {
  std::filesystem::path secret_file;
  std::string token(const std::string& player, const std::string& ttl = "1d") const {
    std::string out;
    if (run_command({server_binary(), "token", "--player", player, "--ttl", ttl, "--secret-file", secret_file.string()},
                    out) != 0)
      return {};
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
  }
  static credentials make(const std::filesystem::path& dir, const std::string& name = "server.secret") {
    credentials c{dir / name};
    std::string ignored;
    run_command({server_binary(), "secret", "-o", c.secret_file.string()}, ignored);
    return c;
  }
};

}  // namespace test_server
