// A child process killed at a random instant: the kill -9 tests' common part.
#pragma once

#include <chrono>
#include <thread>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace test_support {

struct killed_child {
  int acknowledgements = -1;  // the read end of the pipe the child wrote to: read it, then close it
  bool killed = false;        // false: the child stopped by itself (exit_code says how)
  int exit_code = 0;
};

// Forks; the child runs work(write_fd), which never returns. After `delay` the parent
// kills it with SIGKILL and waits for it.
template <class Work>
killed_child run_then_kill(Work work, std::chrono::microseconds delay) {
  killed_child out;
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return out;
  pid_t child = ::fork();
  if (child < 0) return out;
  if (child == 0) {
    ::close(pipe_fds[0]);
    work(pipe_fds[1]);
    _exit(6);  // work returned: not what a test child does
  }
  ::close(pipe_fds[1]);
  std::this_thread::sleep_for(delay);
  ::kill(child, SIGKILL);
  int wait_status = 0;
  ::waitpid(child, &wait_status, 0);
  out.acknowledgements = pipe_fds[0];
  out.killed = WIFSIGNALED(wait_status);
  out.exit_code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 0;
  return out;
}

}  // namespace test_support
