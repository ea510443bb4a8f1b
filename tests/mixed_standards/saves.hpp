// One program, two translation units built under different C++ standards (C++20, as the
// library is, and C++23, as a game may be), each saving and loading through savekit into
// strings the other reuses. Their copies of savekit's inline functions must agree: the
// linker keeps one of each, and a copy from one unit then runs on the other's objects.
#pragma once

#include <string>

#include "seed_types.hpp"

namespace mixed {
// Writes status into out (reused) as MessagePack and as JSON; reads both back.
bool round_trip_cxx20(const seeds::Status& status, std::string& packed, std::string& json, seeds::Status& back);
bool round_trip_cxx23(const seeds::Status& status, std::string& packed, std::string& json, seeds::Status& back);
// The compact MessagePack of status written into a string that held `before` bytes.
std::string packed_into_cxx20(const seeds::Status& status, std::size_t before);
std::string packed_into_cxx23(const seeds::Status& status, std::size_t before);
}  // namespace mixed
