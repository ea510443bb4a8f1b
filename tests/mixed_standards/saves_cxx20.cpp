// The C++20 half of test_mixed_standards (see saves.hpp).
#include <savekit/savekit.hpp>

#include "saves.hpp"

namespace mixed {
bool round_trip_cxx20(const seeds::Status& status, std::string& packed, std::string& json, seeds::Status& back) {
  savekit::to_msgpack(status, packed);
  savekit::to_json(status, json);
  seeds::Status from_json;
  return savekit::from_msgpack(packed, back).has_value() && savekit::from_json(json, from_json).has_value() &&
         from_json == status;
}

std::string packed_into_cxx20(const seeds::Status& status, std::size_t before) {
  std::string out(before, 'z');
  savekit::to_msgpack(status, out, {.form = savekit::msgpack_form::compact});
  return out;
}
}  // namespace mixed
