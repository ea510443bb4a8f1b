// The native transport: Debian's libcurl, one easy handle per sync, reused across a run's
// requests (one connection, kept alive). TLS verification stays on; proxies come from the
// environment (http_proxy, https_proxy, no_proxy), as libcurl reads them.
#pragma once

#include <memory>

#include "savekit/cloud.hpp"

namespace savekit::cloud::detail {

// errc::invalid_value if libcurl cannot start.
result<std::shared_ptr<transport>> make_curl_transport(const options& o);

}  // namespace savekit::cloud::detail
