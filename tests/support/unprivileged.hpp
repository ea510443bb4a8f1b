// Runs a check in a child process that permissions bind. Root writes through any
// permission bits, and CI runs as root: there the child first becomes `nobody`, so that a
// folder made read-only refuses it as it refuses a player. (Not under WebAssembly: no fork.)
#pragma once

#include <grp.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>

namespace test_support {

inline constexpr uid_t nobody = 65534;  // Debian's nobody and nogroup

// Gives path to the user the check will run as (nobody, when this process is root).
inline void give_to_checker(const std::filesystem::path& path) {
  if (::geteuid() == 0 && ::chown(path.c_str(), nobody, nobody) != 0) std::abort();
}

// check() returns "" when it passed, else what went wrong. So does this; a child that dies
// or cannot drop its privileges is a failure too.
inline std::string run_unprivileged(const std::function<std::string()>& check) {
  int out[2];
  if (::pipe(out) != 0) return "pipe failed";
  const pid_t child = ::fork();
  if (child < 0) return "fork failed";
  if (child == 0) {
    ::close(out[0]);
    std::string problem;
    if (::geteuid() == 0 && (::setgroups(0, nullptr) != 0 || ::setgid(nobody) != 0 || ::setuid(nobody) != 0))
      problem = "could not become nobody";
    if (problem.empty()) problem = check();
    for (std::size_t at = 0; at < problem.size();) {
      const ssize_t n = ::write(out[1], problem.data() + at, problem.size() - at);
      if (n <= 0) break;
      at += static_cast<std::size_t>(n);
    }
    ::_exit(problem.empty() ? 0 : 1);
  }
  ::close(out[1]);
  std::string told;
  char buffer[512];
  for (ssize_t n; (n = ::read(out[0], buffer, sizeof buffer)) > 0;) told.append(buffer, static_cast<std::size_t>(n));
  ::close(out[0]);
  int status = 0;
  if (::waitpid(child, &status, 0) != child) return "waitpid failed";
  if (!WIFEXITED(status)) return "the check's process died (status " + std::to_string(status) + ")";
  if (WEXITSTATUS(status) != 0 && told.empty()) return "the check failed without saying why";
  return told;
}

}  // namespace test_support
