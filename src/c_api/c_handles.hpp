// What every function of the C ABI (savekit/savekit.h) shares: the handles, where a
// failure's details are kept (rule 4 of the header), the checks of pointer + length
// arguments (rule 2), sk_buffer allocation (rule 3), and the guard that turns an exception
// into a status, so that none crosses into C.
#pragma once

#include <savekit/savekit.h>
#include <savekit/error.hpp>
#include <savekit/prefs.hpp>
#include <savekit/sealer.hpp>
#include <savekit/slots.hpp>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

// Every handle begins with this: sk_last_error takes any of them. Each kind has its own
// magic, so that a handle of one kind passed for another (easy from C#, Python) or one
// closed (the magic is cleared) is refused rather than used.
struct sk_handle_base {
  explicit sk_handle_base(std::uint32_t kind) : magic(kind) {}
  ~sk_handle_base() { magic = 0; }  // after the handle's object is gone (close_handle)
  std::uint32_t magic;
  // Set when closing starts: calls are refused from then on, while the object is destroyed
  // (its queued work and callbacks finishing); sk_last_error still answers.
  std::atomic<bool> closing{false};
  // The last failure of each thread that used the handle (rule 4): two threads on one
  // handle never see each other's. A few dozen threads at most use a handle; the entry
  // of a thread that used it longest ago goes first past that.
  struct kept {
    std::thread::id thread;
    sk_status status = SK_OK;  // the ABI's own statuses (100 and up) have no errc
    savekit::error error{savekit::errc::ok, 0, ""};
  };
  mutable std::mutex error_mutex;
  mutable std::vector<kept> errors;
};

struct sk_prefs : sk_handle_base {
  static constexpr std::uint32_t kind = 0x736b7031;  // "skp1"
  explicit sk_prefs(savekit::prefs s) : sk_handle_base(kind), store(std::move(s)) {}
  savekit::prefs store;
};

struct sk_slots : sk_handle_base {
  static constexpr std::uint32_t kind = 0x736b7331;  // "sks1"
  explicit sk_slots(savekit::slots s) : sk_handle_base(kind), folder(std::move(s)) {}
  savekit::slots folder;
};

// sk_keyring is defined with the sealing (c_seal.cpp), which alone needs zstd and libsodium.
inline constexpr std::uint32_t keyring_kind = 0x736b6b31;  // "skk1"

namespace savekit::c_api {

// Whether a pointer is an open handle of its kind.
template <class Handle>
bool live(const Handle* handle) noexcept {
  return handle != nullptr && handle->magic == Handle::kind && !handle->closing.load(std::memory_order_acquire);
}
bool is_handle(const sk_handle_base* handle) noexcept;  // of any kind

// Closes a handle: calls are refused from the start (closing), the object is destroyed
// (waiting for its queued work, whose callbacks can still ask sk_last_error), then the
// magic is cleared, so that a use after close is more likely refused than not (it stays
// the caller's bug). A second close, or one racing the first, does nothing.
template <class Handle>
void close_handle(Handle* handle) noexcept {
  if (handle == nullptr || handle->magic != Handle::kind) return;
  if (handle->closing.exchange(true, std::memory_order_acq_rel)) return;
  delete handle;
}

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

// A handle that is not an open one of its kind: null, closed, or another kind's (kept with
// the calling thread, as there is no handle to keep it with).
inline sk_status not_a_handle(const void* handle) noexcept {
  return handle == nullptr
             ? null_argument(nullptr)
             : fail(nullptr, SK_INVALID_VALUE, "not an open handle of this kind (closed, or another kind's)");
}

// A status of the C++ API as the ABI's, its failure kept with the handle.
inline sk_status done(const sk_handle_base* handle, const status& s) noexcept {
  return s ? SK_OK : fail(handle, s.error());
}

// An options struct the caller sized (header rule 5) over the defaults in `given`: an
// older caller's struct is a prefix, the rest stays the default; a struct larger than this
// library knows is a newer caller's, refused.
template <class Options>
sk_status read_options(const sk_handle_base* handle, const Options* options, Options& given,
                       const char* what) noexcept {
  if (!options) return SK_OK;
  if (options->struct_size < sizeof(std::size_t) || options->struct_size > sizeof(Options))
    return fail(handle, SK_INVALID_OPTIONS, what);
  std::memcpy(static_cast<void*>(&given), options, options->struct_size);
  given.struct_size = sizeof(Options);
  return SK_OK;
}

// A path for the system: no NUL inside (it would name another file).
inline sk_status check_path(std::string_view path) noexcept {
  if (std::size_t nul = path.find('\0'); nul != std::string_view::npos)
    return fail(nullptr, error{errc::invalid_path, nul, "a path holds no NUL byte"});
  return SK_OK;
}

// The sealer slots opened with these options use (c_seal.cpp); null when keys is null.
sk_status slot_sealer(const void* keys, const sk_seal_options* options, std::string_view player,
                      std::shared_ptr<const payload_sealer>& out) noexcept;

}  // namespace savekit::c_api
