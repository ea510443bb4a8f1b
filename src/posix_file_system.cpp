// The file backend's system calls on POSIX (Linux, and Emscripten's NODERAWFS).
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include <dirent.h>
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

file_system::file_info info_of(const struct stat& st) {
  file_system::file_info info;
  info.regular = S_ISREG(st.st_mode);
  info.directory = S_ISDIR(st.st_mode);
  info.size = static_cast<std::uint64_t>(st.st_size);
  info.device = static_cast<std::uint64_t>(st.st_dev);
  info.inode = static_cast<std::uint64_t>(st.st_ino);
  info.links = static_cast<std::uint64_t>(st.st_nlink);
  info.permissions = static_cast<std::uint32_t>(st.st_mode & 07777);
  info.owner = static_cast<std::uint32_t>(st.st_uid);
  info.group = static_cast<std::uint32_t>(st.st_gid);
  return info;
}

// The fstat open() made of a file it opened to read, for the stat(fd) that follows it
// (the load menu opens, stats, reads and closes a file per slot: one system call fewer
// each). Per thread, used once, forgotten at close: a read-only descriptor, looked at
// again a moment later, would say the same.
struct opened_stat {
  int fd = -1;
  struct stat st {};
};
thread_local opened_stat opened_to_read;

std::string directory_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

#if defined(__EMSCRIPTEN__)
// Emscripten's flock does nothing: the locks of this process are kept in a table, which
// is what matters in a browser tab or a node process. Keys: lock file paths, and
// "inode:DEV:INO" for locks on open files.
struct lock_state {
  bool exclusive = false;
  int holders = 0;
};
std::mutex& lock_table_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, lock_state>& lock_table() {
  static std::map<std::string, lock_state> held;
  return held;
}
std::map<int, std::string>& handle_locks() {
  static std::map<int, std::string> held;
  return held;
}
bool table_acquire(const std::string& key, file_system::lock_mode mode) {
  std::lock_guard guard(lock_table_mutex());
  lock_state& s = lock_table()[key];
  bool exclusive = mode == file_system::lock_mode::exclusive;
  if (s.holders > 0 && (s.exclusive || exclusive)) return false;
  s.exclusive = exclusive;
  ++s.holders;
  return true;
}
void table_release(const std::string& key) {
  std::lock_guard guard(lock_table_mutex());
  auto it = lock_table().find(key);
  if (it != lock_table().end() && --it->second.holders <= 0) lock_table().erase(it);
}
#endif

class posix_lock final : public file_system::lock_token {
 public:
  posix_lock(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~posix_lock() override {
#if defined(__EMSCRIPTEN__)
    table_release(path_);
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
  result<int> open(const std::string& path, open_mode mode, std::uint32_t permissions) override {
    // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below). A file
    // made here (O_CREAT | O_EXCL, which refuses any name that exists, links included) is a
    // new regular file: it needs neither, nor the check.
    int flags = O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
    switch (mode) {
      case open_mode::read:
        flags |= O_RDONLY;
        break;
      case open_mode::append:
        flags |= O_RDWR | O_APPEND;
        break;
      case open_mode::create_new:
        flags = O_CLOEXEC | O_NOFOLLOW | O_RDWR | O_CREAT | O_EXCL;
        break;
    }
    int fd = ::open(path.c_str(), flags, static_cast<mode_t>(permissions));
    if (fd >= 0 && fd == opened_to_read.fd) opened_to_read.fd = -1;  // (a number closed behind our back)
    if (fd >= 0 && mode == open_mode::create_new) return fd;
    if (fd < 0) {
      if (errno == EEXIST) return error{errc::already_exists, 0, path + " exists"};
      if (errno == ENOENT) return error{errc::not_found, 0, "no file " + path};
      if (errno == ELOOP) return error{errc::invalid_path, 0, path + " is a symbolic link (opened where it points)"};
      if (errno == EISDIR) return error{errc::invalid_path, 0, path + " is a folder, not a store file"};
      return io_error("open", path);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      int code = errno;
      ::close(fd);
      return io_error("fstat", path, code);
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd);
      return error{errc::invalid_path, 0, path + " is not a regular file"};
    }
    if (mode == open_mode::read) opened_to_read = {fd, st};
    // Reads of a regular file ignore O_NONBLOCK; writes keep blocking semantics by its
    // removal. (Two system calls saved per file read: the load menu opens one per slot.)
    if (mode != open_mode::read) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
  }

  result<std::string> read(int fd, std::uint64_t max_bytes) override {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return io_error("fstat", "store file");
    auto too_large = [&](std::uint64_t size) {
      return error{errc::store_too_large, 0,
                   "store file of " + std::to_string(size) + " bytes is larger than the limit (" +
                       std::to_string(max_bytes) + " bytes)"};
    };
    if (static_cast<std::uint64_t>(st.st_size) > max_bytes) return too_large(static_cast<std::uint64_t>(st.st_size));
    std::string content;
    content.resize(static_cast<std::size_t>(st.st_size));
    std::size_t have = 0;
    for (;;) {
      if (have == content.size()) {
        if (have > max_bytes) return too_large(have);  // it grew while being read
        content.resize(have + (have < (1u << 16) ? (1u << 16) : have / 2));
      }
      ssize_t n = ::pread(fd, content.data() + have, content.size() - have, static_cast<off_t>(have));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return io_error("read", "store file");
      if (n == 0) break;
      have += static_cast<std::size_t>(n);
    }
    if (have > max_bytes) return too_large(have);
    content.resize(have);
    return content;
  }

  result<std::string> read_at(int fd, std::uint64_t offset, std::size_t n) override {
    std::string out(n, '\0');
    std::size_t have = 0;
    while (have < n) {
      ssize_t got = ::pread(fd, out.data() + have, n - have, static_cast<off_t>(offset + have));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return io_error("read", "store file");
      if (got == 0) break;
      have += static_cast<std::size_t>(got);
    }
    out.resize(have);
    return out;
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

  void close(int fd) override {
    if (fd == opened_to_read.fd) opened_to_read.fd = -1;
#if defined(__EMSCRIPTEN__)
    std::string key;
    {
      std::lock_guard guard(lock_table_mutex());
      auto it = handle_locks().find(fd);
      if (it != handle_locks().end()) {
        key = it->second;
        handle_locks().erase(it);
      }
    }
    if (!key.empty()) table_release(key);
#endif
    ::close(fd);
  }

  result<file_info> stat(int fd) override {
    if (fd == opened_to_read.fd) {  // once: a later stat (a replaced file?) looks again
      opened_to_read.fd = -1;
      return info_of(opened_to_read.st);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) return io_error("fstat", "store file");
    return info_of(st);
  }

  result<file_info> stat(const std::string& path) override {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) return error{errc::not_found, 0, "no file " + path};
      return io_error("stat", path);
    }
    return info_of(st);
  }

  status copy_permissions(int fd, const file_info& like) override {
    // (Looked at first: a new file usually has them already, and a chmod is a change the
    // next sync must write.)
    struct stat st {};
    const bool known = ::fstat(fd, &st) == 0;
    if (!known || (st.st_mode & 07777) != (like.permissions & 07777))
      if (::fchmod(fd, static_cast<mode_t>(like.permissions & 07777)) != 0) return io_error("fchmod", "store file");
    if (known && (st.st_uid != like.owner || st.st_gid != like.group)) {
      // Only a privileged process may give a file away; anyone else keeps it as it is.
      (void)!::fchown(fd, static_cast<uid_t>(like.owner), static_cast<gid_t>(like.group));
    }
    return {};
  }

  status rename(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) return io_error("rename", from + " to " + to);
    return {};
  }

  status sync_directory(const std::string& directory) override {
    int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return io_error("open folder", directory);
    int result = ::fsync(fd);
    int code = errno;
    ::close(fd);
    if (result != 0) return io_error("fsync folder", directory, code);
    return {};
  }

  status remove(const std::string& path) override {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return io_error("unlink", path);
    return {};
  }

  result<std::vector<std::string>> create_directories(const std::string& directory) override {
    std::vector<std::string> created;
    std::size_t at = 0;
    while (at != std::string::npos) {
      at = directory.find('/', at + 1);
      std::string prefix = directory.substr(0, at);
      if (prefix.empty() || prefix == "." || prefix == "..") continue;
      if (::mkdir(prefix.c_str(), 0755) == 0) {
        created.push_back(prefix);
        continue;
      }
      if (errno != EEXIST) return io_error("create folder", prefix);
      struct stat st {};
      if (::stat(prefix.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        return error{errc::invalid_path, 0, prefix + " is not a folder"};
    }
    return created;
  }

  result<std::vector<std::string>> list_directory(const std::string& directory) override {
    DIR* folder = ::opendir(directory.c_str());
    if (!folder) {
      if (errno == ENOENT) return error{errc::not_found, 0, "no folder " + directory};
      if (errno == ENOTDIR) return error{errc::invalid_path, 0, directory + " is not a folder"};
      return io_error("open folder", directory);
    }
    std::vector<std::string> names;
    errno = 0;
    while (const dirent* entry = ::readdir(folder)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(std::move(name));
      errno = 0;
    }
    int code = errno;
    ::closedir(folder);
    if (code != 0) return io_error("read folder", directory, code);
    return names;
  }

  result<std::string> resolve(const std::string& given) override {
    std::string path = given;
    if (path.empty() || path.back() == '/') return error{errc::invalid_path, 0, "'" + given + "' names no file"};
    if (path.front() != '/') {
      char cwd[PATH_MAX];
      if (!::getcwd(cwd, sizeof cwd)) return io_error("getcwd for", given);
      path = std::string(cwd) + "/" + path;
    }
    for (int links = 0; links < 40; ++links) {
      std::string name = path.substr(path.find_last_of('/') + 1);
      if (name.empty() || name == "." || name == "..")
        return error{errc::invalid_path, 0, "'" + given + "' names a folder, not a store file"};
      std::string folder = directory_of(path);
      char* real = ::realpath(folder.c_str(), nullptr);
      if (!real) {
        if (errno == ENOENT || errno == ENOTDIR) return error{errc::not_found, 0, "no folder " + folder};
        return io_error("resolve", folder);
      }
      std::string real_folder = real;
      std::free(real);
      std::string full = (real_folder == "/" ? "" : real_folder) + "/" + name;
      struct stat st {};
      if (::lstat(full.c_str(), &st) != 0) {
        if (errno == ENOENT) return full;
        return io_error("stat", full);
      }
      if (!S_ISLNK(st.st_mode)) return full;
      char target[PATH_MAX];
      ssize_t n = ::readlink(full.c_str(), target, sizeof target - 1);
      if (n < 0) return io_error("readlink", full);
      std::string next(target, static_cast<std::size_t>(n));
      if (next.empty()) return error{errc::invalid_path, 0, full + " is an empty symbolic link"};
      path = next.front() == '/' ? next : real_folder + "/" + next;
      if (path.back() == '/') return error{errc::invalid_path, 0, full + " links to a folder, not a store file"};
    }
    return error{errc::invalid_path, 0, "too many symbolic links from " + given};
  }

  result<std::unique_ptr<lock_token>> lock(const std::string& path, lock_mode mode, bool create) override {
    // O_NONBLOCK: a FIFO planted at the lock file's name must not hang the open.
    int flags = O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | (create ? O_RDWR | O_CREAT : O_RDONLY);
    int fd = ::open(path.c_str(), flags, 0644);
    if (fd < 0) {
      if (errno == ENOENT) return error{errc::not_found, 0, "no lock file " + path};
      return io_error("open lock file", path);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      return error{errc::invalid_path, 0, "the lock file " + path + " is not a regular file"};
    }
    if (::flock(fd, (mode == lock_mode::exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
      int code = errno;
      ::close(fd);
      if (code == EWOULDBLOCK) return in_use(path);
      return io_error("flock", path, code);
    }
#if defined(__EMSCRIPTEN__)
    if (!table_acquire(path, mode)) {
      ::close(fd);
      return in_use(path);
    }
#endif
    return std::unique_ptr<lock_token>(new posix_lock(fd, path));
  }

  status lock(int fd, lock_mode mode) override {
    if (::flock(fd, (mode == lock_mode::exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
      if (errno == EWOULDBLOCK) return in_use("the store file (under another name)");
      return io_error("flock", "store file");
    }
#if defined(__EMSCRIPTEN__)
    struct stat st {};
    if (::fstat(fd, &st) != 0) return io_error("fstat", "store file");
    std::string key = "inode:" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
    if (!table_acquire(key, mode)) return in_use("the store file (under another name)");
    std::lock_guard guard(lock_table_mutex());
    handle_locks()[fd] = key;
#endif
    return {};
  }

 private:
  static error in_use(const std::string& what) {
    return error{errc::locked, 0, "store is in use by another process or handle: " + what};
  }
};

}  // namespace

file_system& posix_file_system() {
  // Never destroyed: a save from a static destructor at exit (a game saving as it quits)
  // may come after every other static is gone. (It holds no state to release.)
  static posix_fs* const instance = new posix_fs;
  return *instance;
}

}  // namespace savekit
