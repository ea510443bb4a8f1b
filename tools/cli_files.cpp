// Files the savekit command-line program reads and writes (cli_files.hpp).
#include "cli_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli_common.hpp"

namespace savekit_cli {

savekit::error io_failure(const std::string& what, int code) {
  return savekit::error{savekit::errc::io_error, 0, what + ": " + std::strerror(code)};
}

// All of a file ("-" or empty: standard input), refusing folders and other non-files.
savekit::result<std::string> read_input(const std::string& file) {
  bool from_stdin = file.empty() || file == "-";
  int fd = from_stdin ? 0 : ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_failure("cannot open the file", errno);
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    if (!from_stdin) ::close(fd);
    return savekit::error{savekit::errc::invalid_path, 0, "is a folder, not a file"};
  }
  std::string content;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int code = errno;
      if (!from_stdin) ::close(fd);
      return io_failure("cannot read the file", code);
    }
    if (n == 0) break;
    content.append(buffer, static_cast<std::size_t>(n));
  }
  if (!from_stdin) ::close(fd);
  return content;
}

// Writes a whole file through a temporary one beside it and a rename: a failed write
// leaves the old file (or none), never a truncated one. A symbolic link is written
// through (the link stays a link; a dangling one is refused), an existing file keeps its
// permissions, a new one gets the umask's, and what is not a regular file (/dev/null, a
// FIFO, /dev/stdout) is written to directly, never replaced.
savekit::status write_file(const std::string& given, std::string_view content) {
  std::string path = given;
  struct stat link {};
  if (::lstat(given.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    char* real = ::realpath(given.c_str(), nullptr);
    if (!real) return io_failure("cannot follow the link " + given, errno);
    path = real;
    std::free(real);
  }
  struct stat existing {};
  bool exists = ::stat(path.c_str(), &existing) == 0;
  auto write_all = [&](int fd) {
    const char* p = content.data();
    std::size_t left = content.size();
    while (left > 0) {
      ssize_t n = ::write(fd, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return n < 0 ? errno : EIO;
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    return 0;
  };
  if (exists && !S_ISREG(existing.st_mode)) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return io_failure("cannot open " + given, errno);
    int code = write_all(fd);
    if (::close(fd) != 0 && code == 0) code = errno;
    if (code != 0) return io_failure("cannot write " + given, code);
    return {};
  }
  std::string temporary = path + ".savekit-tmp";
  ::unlink(temporary.c_str());
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                  exists ? existing.st_mode & 07777 : 0666);
  if (fd < 0) return io_failure("cannot create " + temporary, errno);
  int code = write_all(fd);
  if (code == 0 && exists && ::fchmod(fd, existing.st_mode & 07777) != 0) code = errno;
  // The owner too, where the process may (root rewriting a game's key file must not take it
  // from the game); anyone else keeps the file as it is.
  if (code == 0 && exists) (void)!::fchown(fd, existing.st_uid, existing.st_gid);
  if (code == 0 && ::fsync(fd) != 0) code = errno;
  if (::close(fd) != 0 && code == 0) code = errno;
  if (code == 0 && ::rename(temporary.c_str(), path.c_str()) != 0) code = errno;
  if (code != 0) {
    ::unlink(temporary.c_str());
    return io_failure("cannot write " + given, code);
  }
  std::string folder = path.find('/') == std::string::npos ? "." : path.substr(0, path.find_last_of('/') + 1);
  if (int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
    (void)::fsync(dir);  // the new name survives a power cut
    ::close(dir);
  }
  return {};
}

// The content goes to a temporary file first (0600, synced), then link() gives it its name:
// link never replaces an existing file, so a race with another writer cannot either.
savekit::status create_private_file(const std::string& path, std::string_view content) {
  struct stat existing {};
  if (::lstat(path.c_str(), &existing) == 0)
    return savekit::error{savekit::errc::already_exists, 0, path + " exists: it is never replaced"};
  // A name of its own (two keygens at once must not link each other's half-written file).
  std::string temporary = path + ".savekit-tmp-XXXXXX";
  int fd = ::mkstemp(temporary.data());  // 0600
  if (fd < 0) return io_failure("cannot create a file beside " + path, errno);
  int code = 0;
  for (std::string_view left = content; code == 0 && !left.empty();) {
    ssize_t n = ::write(fd, left.data(), left.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      code = n < 0 ? errno : EIO;
    else
      left.remove_prefix(static_cast<std::size_t>(n));
  }
  if (code == 0 && ::fsync(fd) != 0) code = errno;
  if (::close(fd) != 0 && code == 0) code = errno;
  if (code == 0 && ::link(temporary.c_str(), path.c_str()) != 0) code = errno;
  ::unlink(temporary.c_str());
  if (code == EEXIST) return savekit::error{savekit::errc::already_exists, 0, path + " exists: it is never replaced"};
  if (code != 0) return io_failure("cannot write " + path, code);
  std::string folder = path.find('/') == std::string::npos ? "." : path.substr(0, path.find_last_of('/') + 1);
  if (int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
    (void)::fsync(dir);
    ::close(dir);
  }
  return {};
}

int write_output(const std::string& path, std::string_view bytes) {
  if (path.empty() || path == "-") {
    output out;
    out.write(bytes);
    return out.finish(ok);
  }
  if (auto written = write_file(path, bytes); !written) return report(path, written.error());
  return ok;
}

}  // namespace savekit_cli
