// The file backend's system calls on POSIX (Linux, and Emscripten's NODERAWFS).
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "savekit/file_backend.hpp"

namespace savekit {
namespace {

error io_error(const char* what, const std::string& path, int code = errno) {
  errc kind = (code == ENOSPC || code == EDQUOT) ? errc::storage_full : errc::io_error;
  return error{kind, 0, std::string{what} + " " + path + ": " + std::strerror(code)};
}

#if defined(__EMSCRIPTEN__)
// Emscripten's flock does nothing: keep the locks of this process in a table, which is
// what matters in a browser tab or a node process.
std::mutex& lock_table_mutex() {
  static std::mutex m;
  return m;
}
std::set<std::string>& lock_table() {
  static std::set<std::string> held;
  return held;
}
#endif

class posix_lock final : public file_system::lock_token {
 public:
  posix_lock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~posix_lock() override {
#if defined(__EMSCRIPTEN__)
    std::lock_guard guard(lock_table_mutex());
    lock_table().erase(path_);
#endif
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }

 private:
  int fd_;
  std::string path_;
};

class posix_fs final : public file_system {
 public:
  result<std::string> read_file(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ENOENT) return error{errc::not_found, 0, "no file " + path};
      return io_error("open", path);
    }
    std::string content;
    struct stat info {};
    if (::fstat(fd, &info) == 0 && info.st_size > 0) content.reserve(static_cast<std::size_t>(info.st_size));
    char buffer[1 << 16];
    for (;;) {
      ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        int code = errno;
        ::close(fd);
        return io_error("read", path, code);
      }
      if (n == 0) break;
      content.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return content;
  }

  result<int> open(const std::string& path, open_mode mode) override {
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (mode == open_mode::append ? O_APPEND : O_TRUNC);
    int fd = ::open(path.c_str(), flags, 0644);
    if (fd < 0) return io_error("open", path);
    return fd;
  }

  status write(int fd, const void* data, std::size_t n) override {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
      ssize_t written = ::write(fd, p, n);
      if (written < 0 && errno == EINTR) continue;
      if (written <= 0) return io_error("write", "store file");
      p += written;
      n -= static_cast<std::size_t>(written);
    }
    return {};
  }

  status sync(int fd) override {
    if (::fdatasync(fd) != 0) return io_error("fdatasync", "store file");
    return {};
  }

  status truncate(int fd, std::uint64_t size) override {
    if (::ftruncate(fd, static_cast<off_t>(size)) != 0) return io_error("ftruncate", "store file");
    return {};
  }

  void close(int fd) override { ::close(fd); }

  status rename(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) return io_error("rename", from + " to " + to);
    return {};
  }

  status sync_directory(const std::string& directory) override {
    int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return io_error("open directory", directory);
    int result = ::fsync(fd);
    int code = errno;
    ::close(fd);
    if (result != 0) return io_error("fsync directory", directory, code);
    return {};
  }

  status remove(const std::string& path) override {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return io_error("unlink", path);
    return {};
  }

  status create_directories(const std::string& directory) override {
    std::error_code code;
    std::filesystem::create_directories(directory, code);
    if (code) return error{errc::io_error, 0, "create directory " + directory + ": " + code.message()};
    return {};
  }

  result<std::unique_ptr<lock_token>> lock(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return io_error("open lock file", path);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int code = errno;
      ::close(fd);
      if (code == EWOULDBLOCK) return error{errc::locked, 0, "store is in use by another process or handle: " + path};
      return io_error("flock", path, code);
    }
#if defined(__EMSCRIPTEN__)
    {
      std::lock_guard guard(lock_table_mutex());
      if (!lock_table().insert(path).second) {
        ::close(fd);
        return error{errc::locked, 0, "store is in use by another handle: " + path};
      }
    }
#endif
    return std::unique_ptr<lock_token>(new posix_lock(fd, path));
  }
};

}  // namespace

file_system& posix_file_system() {
  static posix_fs instance;
  return instance;
}

}  // namespace savekit
