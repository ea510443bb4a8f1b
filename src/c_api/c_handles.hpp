// What every function of the C ABI (savekit/savekit.h) shares: the handles, where a
// failure's details are kept (rule 4 of the header), the checks of pointer + length
// arguments (rule 2), sk_buffer allocation (rule 3), and the guard that turns an exception
// into a status, so that none crosses into C.
#pragma once

#include <savekit/savekit.h>
#include <savekit/error.hpp>
#include <savekit/prefs.hpp>

#include <cstdint>
#include <mutex>
#include <new>
#include <string>
#include <string_view>

// Every handle begins with this: sk_last_error takes any of them.
struct sk_handle_base {
  static constexpr std::uint32_t live = 0x736b6831;  // "skh1"
  std::uint32_t magic = live;
  mutable std::mutex error_mutex;
  mutable sk_status last_status = SK_OK;  // the ABI's own statuses (100 and up) have no errc
  mutable savekit::error last{savekit::errc::ok, 0, ""};
};

struct sk_prefs : sk_handle_base {
  explicit sk_prefs(savekit::prefs s) : store(std::move(s)) {}
  savekit::prefs store;
};

namespace savekit::c_api {

// Keeps a failure with the handle (or the calling thread, for a call without one) and
// returns its status. Never throws: out of memory, the status alone is returned.
sk_status fail(const sk_handle_base* handle, const error& e) noexcept;
sk_status fail(const sk_handle_base* handle, sk_status status, const char* message) noexcept;

// A pointer + length argument as a view: the empty view for (NULL, 0); false for a null
// pointer with a length (rule 2).
inline bool view_of(const void* data, std::size_t size, std::string_view& out) noexcept {
  if (data == nullptr && size != 0) return false;
  out = size == 0 ? std::string_view{} : std::string_view{static_cast<const char*>(data), size};
  return true;
}

// Copies bytes into a new sk_buffer; false when the memory cannot be had.
bool fill(sk_buffer* out, std::string_view bytes) noexcept;

// A value into caller-owned memory (rule 3): *needed is always set.
sk_status copy_out(const sk_handle_base* handle, std::string_view value, void* out, std::size_t capacity,
                   std::size_t* needed) noexcept;

// Runs body and returns its status; an exception becomes SK_OUT_OF_MEMORY or SK_INTERNAL.
template <class Body>
sk_status guarded([[maybe_unused]] const sk_handle_base* handle, Body&& body) noexcept {
#if defined(__cpp_exceptions)
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(handle, SK_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return fail(handle, SK_INTERNAL, e.what());
  } catch (...) {
    return fail(handle, SK_INTERNAL, "an unknown exception");
  }
#else
  return body();
#endif
}

inline sk_status null_argument(const sk_handle_base* handle) noexcept {
  return fail(handle, SK_NULL_ARGUMENT, "a null handle or pointer, or a null pointer with a length");
}

}  // namespace savekit::c_api
