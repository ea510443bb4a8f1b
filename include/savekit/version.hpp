#pragma once

#define SAVEKIT_VERSION_MAJOR 0
#define SAVEKIT_VERSION_MINOR 1
#define SAVEKIT_VERSION_PATCH 0

namespace savekit {
inline constexpr const char* version = "0.1.0";
}
