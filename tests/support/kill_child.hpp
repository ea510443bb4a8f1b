// A child process killed at a random instant of its work: the kill -9 tests' common part.
//
// The instant is measured from the child's first acknowledgement, not from its start: on a
// loaded machine (a sanitizer build beside another build on two cores) a child may need far
// longer than any fixed delay to open its files and commit once, and a kill timed from the
// fork would then find nothing done. Waiting for observed progress keeps every round a kill
// in the middle of work, whatever the machine is doing.
#pragma once

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <thread>
#include <vector>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace test_support {

struct killed_child {
  std::vector<std::byte> acknowledgements;  // every byte the child wrote to its pipe, in order
  bool acknowledged_before_kill = false;    // the child's first acknowledgement arrived
  bool killed = false;  // by the parent's SIGKILL; false: it stopped by itself (a crash, or exit_code says how)
  int exit_code = 0;
};

// Forks; the child runs work(write_fd), which never returns and writes acknowledgements of
// `ack_size` bytes to write_fd. The parent waits for the first whole acknowledgement (up to
// `patience`, a bound for a child that hangs, not a timing), then for `delay`, then kills the
// child with SIGKILL, waits for it and reads what it had acknowledged.
template <class Work>
killed_child run_then_kill(Work work, std::size_t ack_size, std::chrono::microseconds delay,
                           std::chrono::seconds patience = std::chrono::seconds(300)) {
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
  const int read_fd = pipe_fds[0];
  enum class got { data, nothing_yet, end };  // end: the child closed the pipe (it died) or an error
  auto read_some = [&](int timeout_ms) {
    pollfd p{read_fd, POLLIN, 0};
    int ready = ::poll(&p, 1, timeout_ms);
    if (ready == 0) return got::nothing_yet;
    if (ready < 0) return errno == EINTR ? got::nothing_yet : got::end;
    std::byte chunk[4096];
    ssize_t n = ::read(read_fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) return got::nothing_yet;
    if (n <= 0) return got::end;
    out.acknowledgements.insert(out.acknowledgements.end(), chunk, chunk + n);
    return got::data;
  };
  const auto give_up = std::chrono::steady_clock::now() + patience;
  while (out.acknowledgements.size() < ack_size && std::chrono::steady_clock::now() < give_up)
    if (read_some(1000) == got::end) break;
  out.acknowledged_before_kill = out.acknowledgements.size() >= ack_size;
  if (out.acknowledged_before_kill) std::this_thread::sleep_for(delay);
  ::kill(child, SIGKILL);
  int wait_status = 0;
  ::waitpid(child, &wait_status, 0);
  while (read_some(0) == got::data) {
  }
  ::close(read_fd);
  out.killed = WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGKILL;  // not a crash of its own
  out.exit_code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 0;
  return out;
}

}  // namespace test_support
