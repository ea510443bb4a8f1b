// The browser's transport for cloud sync: fetch(), awaited through Asyncify, so that the
// sync engine — written as plain blocking calls — runs unchanged in WebAssembly. A program
// that syncs in the browser links with -sASYNCIFY (savekit::cloud adds it): a request
// unwinds the sync's call stack, the page goes on (the game keeps running), and the stack
// is rewound when the answer has come.
//
// Asyncify keeps one suspended stack at a time: a call here while another call of the
// program is suspended (the game's own emscripten_sleep, say) is refused (errc::locked),
// never made — two suspended stacks would overwrite each other.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string_view>

#include "savekit/cloud.hpp"
#include "savekit/file_system.hpp"
#include "savekit/slots.hpp"

namespace savekit::cloud::detail {

// errc::invalid_value if the program was not linked with -sASYNCIFY.
result<std::shared_ptr<transport>> make_fetch_transport(const options& o);

// This call may suspend now: Asyncify is linked, and no other stack is suspended.
bool can_suspend();
// Lets the page run for d (emscripten_sleep); returns at once if it cannot suspend.
void pause_for(std::chrono::milliseconds d);
// Waits, letting the page run, until every change made so far in the slots is durable (an
// IndexedDB transaction has completed), or for the failure that undid them — or a loss
// they found meanwhile (saves other code deleted: slots::when_durable), which stops a run.
status wait_until_durable(slots& folder);
// Waits, letting the page run, until the slot's newest intact save (or the generation
// given) is loaded from IndexedDB (slots::load_async); its outcome.
status wait_until_loaded(slots& folder, std::string_view name, std::optional<std::uint64_t> generation);

}  // namespace savekit::cloud::detail
