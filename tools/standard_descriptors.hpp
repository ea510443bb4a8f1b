// Descriptors 0, 1 and 2 made valid at a program's start, for every program savekit ships.
//
// A launcher or cron may start a program with standard output or error closed. The next
// open() then returns descriptor 1 or 2: the store file or its lock would become "standard
// output", and a warning or a table printed later would be written into the save. Each
// closed one is opened on /dev/null first, in order (open() takes the lowest free number).
#pragma once

#include <cerrno>

#include <fcntl.h>
#include <unistd.h>

namespace savekit_tools {

// false: a descriptor is closed and /dev/null cannot be opened (the program must stop, and
// cannot say why: its standard error may be the closed one).
inline bool make_standard_descriptors_valid() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int opened = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (opened != fd) {
      if (opened >= 0) ::close(opened);
      return false;
    }
  }
  return true;
}

}  // namespace savekit_tools
