// savekit/savekit.hpp — every codec, header-only (the savekit::core target): reflection,
// JSON, MessagePack, transcoding, Base64. The store, which is compiled (savekit::savekit),
// is savekit/prefs.hpp; its browser backend savekit/indexeddb.hpp. Include only the header
// you need (savekit/json.hpp, savekit/msgpack.hpp, ...) to compile less.
#pragma once

#include "savekit/base64.hpp"
#include "savekit/error.hpp"
#include "savekit/json.hpp"
#include "savekit/msgpack.hpp"
#include "savekit/reflect.hpp"
#include "savekit/transcode.hpp"
#include "savekit/version.hpp"
