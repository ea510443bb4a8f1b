// The C ABI's status names, version, buffers and errors (savekit/savekit.h, rules 1, 3, 4).
#include <savekit/version.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "c_handles.hpp"

namespace savekit::c_api {

namespace {

// The failures of calls that take no handle, per thread.
thread_local sk_status thread_status = SK_OK;
thread_local error thread_last{errc::ok, 0, ""};

void keep(const sk_handle_base* handle, sk_status status, error e) {
  if (!handle) {
    thread_status = status;
    thread_last = std::move(e);
    return;
  }
  constexpr std::size_t most_threads = 64;
  const std::thread::id me = std::this_thread::get_id();
  std::lock_guard lock(handle->error_mutex);
  auto& errors = handle->errors;
  auto mine = std::find_if(errors.begin(), errors.end(), [&](const auto& k) { return k.thread == me; });
  if (mine == errors.end()) {
    if (errors.size() >= most_threads) errors.erase(errors.begin());
    errors.push_back({me, status, std::move(e)});
  } else {  // the most recent last
    sk_handle_base::kept updated{me, status, std::move(e)};
    errors.erase(mine);
    errors.push_back(std::move(updated));
  }
}

}  // namespace

sk_status fail(const sk_handle_base* handle, const error& e) noexcept {
  const auto status = static_cast<sk_status>(e.code());
#if defined(__cpp_exceptions)
  try {
#endif
    keep(handle, status, e);
#if defined(__cpp_exceptions)
  } catch (...) {  // no memory for the message: the status still says what failed
  }
#endif
  return status;
}

sk_status fail(const sk_handle_base* handle, sk_status status, const char* message) noexcept {
#if defined(__cpp_exceptions)
  try {
#endif
    keep(handle, status, error{status < 100 ? static_cast<errc>(status) : errc::ok, 0, message});
#if defined(__cpp_exceptions)
  } catch (...) {
  }
#endif
  return status;
}

bool is_handle(const sk_handle_base* handle) noexcept {
  if (!handle) return false;
  const std::uint32_t m = handle->magic;
  return m == sk_prefs::kind || m == sk_slots::kind || m == keyring_kind;
}

bool fill(sk_buffer* out, std::string_view bytes) noexcept {
  out->data = nullptr;
  out->size = 0;
  if (bytes.empty()) return true;
  auto* data = static_cast<std::uint8_t*>(std::malloc(bytes.size()));
  if (!data) return false;
  std::memcpy(data, bytes.data(), bytes.size());
  out->data = data;
  out->size = bytes.size();
  return true;
}

sk_status copy_out(const sk_handle_base* handle, std::string_view value, void* out, std::size_t capacity,
                   std::size_t* needed) noexcept {
  if (!needed) return null_argument(handle);
  *needed = value.size();
  if (value.size() > capacity || (out == nullptr && !value.empty()))
    return fail(handle, SK_BUFFER_TOO_SMALL, "the buffer is smaller than the value: *needed says how large");
  if (!value.empty()) std::memcpy(out, value.data(), value.size());
  return SK_OK;
}

}  // namespace savekit::c_api

using namespace savekit::c_api;

extern "C" {

const char* sk_status_name(sk_status status) {
  switch (status) {
    case SK_NULL_ARGUMENT:
      return "null_argument";
    case SK_BUFFER_TOO_SMALL:
      return "buffer_too_small";
    case SK_OUT_OF_MEMORY:
      return "out_of_memory";
    case SK_INTERNAL:
      return "internal";
    case SK_INVALID_OPTIONS:
      return "invalid_options";
    default:
      break;
  }
  if (status < 0 || status > SK_UNSUPPORTED_ALGORITHM) return "unknown";
  // savekit::to_string(errc) names are string literals: NUL-terminated.
  return savekit::to_string(static_cast<savekit::errc>(status)).data();
}

const char* sk_version(void) { return savekit::version; }
uint32_t sk_abi_version(void) { return SAVEKIT_ABI_VERSION; }

void sk_buffer_free(sk_buffer* buffer) {
  if (!buffer) return;
  std::free(buffer->data);
  buffer->data = nullptr;
  buffer->size = 0;
}

sk_status sk_last_error(const void* handle, sk_error* out) {
  if (!out) return SK_NULL_ARGUMENT;
  out->status = SK_OK;
  out->offset = 0;
  out->message = {nullptr, 0};
  out->path = {nullptr, 0};
  const auto* base = static_cast<const sk_handle_base*>(handle);
  if (base && !is_handle(base)) return SK_INVALID_VALUE;
  return guarded(nullptr, [&]() -> sk_status {
    savekit::error copy{savekit::errc::ok, 0, ""};
    sk_status status = SK_OK;
    if (base) {
      const std::thread::id me = std::this_thread::get_id();
      std::lock_guard lock(base->error_mutex);
      for (const auto& k : base->errors)
        if (k.thread == me) copy = k.error, status = k.status;
    } else {
      copy = thread_last;
      status = thread_status;
    }
    out->status = status;
    out->offset = copy.offset();
    if (!fill(&out->message, copy.message()) || !fill(&out->path, copy.path())) {
      sk_error_free(out);
      return SK_OUT_OF_MEMORY;
    }
    return SK_OK;
  });
}

void sk_error_free(sk_error* error) {
  if (!error) return;
  sk_buffer_free(&error->message);
  sk_buffer_free(&error->path);
}

}  // extern "C"
