#pragma once

#define SAVEKIT_VERSION_MAJOR 0
#define SAVEKIT_VERSION_MINOR 1
#define SAVEKIT_VERSION_PATCH 0

#define SAVEKIT_DETAIL_VERSION_TEXT(major, minor, patch) #major "." #minor "." #patch
#define SAVEKIT_DETAIL_VERSION_STRING(major, minor, patch) SAVEKIT_DETAIL_VERSION_TEXT(major, minor, patch)

namespace savekit {
// "MAJOR.MINOR.PATCH", from the three numbers above (CMake's project version reads them too).
inline constexpr const char* version =
    SAVEKIT_DETAIL_VERSION_STRING(SAVEKIT_VERSION_MAJOR, SAVEKIT_VERSION_MINOR, SAVEKIT_VERSION_PATCH);
}  // namespace savekit
