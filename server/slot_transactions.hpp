// The transaction script of savekit-server's storage, written once for both drivers over
// a sql_session (sql_session.hpp): reads, and writes as one transaction each whose
// compare-and-set is a single statement on the slot's row, with versions kept, write ids
// remembered and both pruned (docs/server.md, "Storage").
//
// Invariants:
//  1. A write changes nothing unless its compare-and-set (replace, create, remove) found
//     the row in the state its precondition names; then everything it changes (the slot,
//     the player's count, the kept version, the write id) commits together or not at all.
//  2. A write id sent again for the same write (same digest) is answered as the first time
//     (repeated), for another write refused (write_id_reused) — looked up inside the
//     transaction, and again after a failed compare-and-set, for an attempt under the same
//     id that committed meanwhile (another server process).
//  3. A slot is created only below the player's live-slot limit: the count and the
//     creation are one transaction, and the count's row lock orders one player's creations.
//  4. Every function returns nothing when a statement failed: the session keeps why, and
//     the driver (which owns the transaction) rolls back what is open.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "slot_store.hpp"
#include "sql_session.hpp"

namespace savekit::server::transactions {

std::optional<std::vector<slot_entry>> list(sql_session& db, std::string_view player, bool with_deleted);
std::optional<std::optional<slot_entry>> info(sql_session& db, std::string_view player, std::string_view name);
std::optional<std::optional<slot_bytes>> read(sql_session& db, std::string_view player, std::string_view name,
                                              std::optional<std::int64_t> version);
std::optional<std::vector<slot_entry>> versions(sql_session& db, std::string_view player, std::string_view name);
std::optional<std::optional<remembered_write>> remembered(sql_session& db, std::string_view player,
                                                          std::string_view name, std::string_view write_id);
// Writes run their own BEGIN; they COMMIT, or ROLLBACK where they end without a change.
std::optional<write_outcome> put(sql_session& db, const put_request& request);
std::optional<write_outcome> remove(sql_session& db, const remove_request& request);

}  // namespace savekit::server::transactions
