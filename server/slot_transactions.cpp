// The transaction script (slot_transactions.hpp, with its invariants), over sql_session.
#include "slot_transactions.hpp"

#include <utility>

namespace savekit::server::transactions {

namespace {

// The columns of a slot entry from `first` on: version, deleted, bytes, meta, saved_at,
// write_id (store_schema.hpp).
slot_entry entry_from(const sql_row& row, std::string name, int first = 0) {
  slot_entry e;
  e.name = std::move(name);
  e.version = row.integer(first);
  e.deleted = row.integer(first + 1) != 0;
  e.bytes = row.integer(first + 2);
  e.meta = row.text(first + 3);
  e.saved_at_us = row.integer(first + 4);
  e.write_id = row.text(first + 5);
  return e;
}

// A reader that keeps the first column of a RETURNING statement's row, if it gave one.
sql_session::row_reader first_integer(std::optional<std::int64_t>& out) {
  return [&out](const sql_row& row) { out = row.integer(0); };
}

// The answer a write id already had, if it is remembered (invariant 2).
std::optional<std::optional<write_outcome>> answered_before(sql_session& db, std::string_view player,
                                                            std::string_view name, std::string_view write_id,
                                                            std::string_view digest) {
  std::optional<write_outcome> out;
  if (write_id.empty()) return out;
  if (!db.run("look up the write id", sql::find_write_id, {player, name, write_id}, [&](const sql_row& row) {
        const bool same = row.text(6) == digest;
        out = write_outcome{same ? write_outcome::repeated : write_outcome::write_id_reused,
                            entry_from(row, std::string{name}), row.integer(7) != 0};
      }))
    return std::nullopt;
  return out;
}

// An answer that names a version this write did not make — a write id's first answer again
// (repeated, or reused for another write), or the slot as it is (412) — once that version is
// known to be as durable as any commit now (sql_session::make_durable: on a replicated
// PostgreSQL, on a standby). A commit whose wait for the standby was cancelled is shown to
// others while it is on the primary only: a failover could lose the version named, and the
// client then build on a version that never was (or, with If-Match, overwrite another one
// of the same number). Called outside a
// transaction, after the read.
std::optional<write_outcome> durable_answer(sql_session& db, std::string_view player, write_outcome answer) {
  const bool names_what_others_wrote = answer.kind == write_outcome::repeated ||
                                       answer.kind == write_outcome::write_id_reused ||
                                       answer.kind == write_outcome::version_moved;
  if (names_what_others_wrote && !db.make_durable(player)) return std::nullopt;
  return answer;
}

// A write whose compare-and-set found no row (its transaction ended): the first answer if
// an attempt under the same write id committed meanwhile, else the slot as it is.
std::optional<write_outcome> moved_or_repeated(sql_session& db, std::string_view player, std::string_view name,
                                               std::string_view write_id, std::string_view digest) {
  std::optional<std::optional<write_outcome>> earlier = answered_before(db, player, name, write_id, digest);
  if (!earlier) return std::nullopt;
  if (*earlier) return durable_answer(db, player, std::move(**earlier));
  std::optional<std::optional<slot_entry>> now = info(db, player, name);
  if (!now) return std::nullopt;
  return durable_answer(db, player, write_outcome{write_outcome::version_moved, std::move(*now)});
}

// Keeps what a write id made (if the write has one), and forgets the slot's old ones.
bool remember_write(sql_session& db, std::string_view player, std::string_view write_id, const slot_entry& e,
                    std::string_view digest, bool created, std::int64_t forget_before_us, std::uint32_t keep) {
  if (!write_id.empty() && !db.run("keep the write id", sql::add_write_id,
                                   {player, e.name, write_id, e.version, std::int64_t{e.deleted}, e.bytes, e.meta,
                                    e.saved_at_us, digest, std::int64_t{created}}))
    return false;
  return db.run("forget old write ids", sql::prune_old_writes_id, {player, e.name, forget_before_us}) &&
         db.run("forget old write ids", sql::prune_many_writes_id, {player, e.name, e.version - std::int64_t{keep}});
}

}  // namespace

std::optional<std::vector<slot_entry>> list(sql_session& db, std::string_view player, bool with_deleted) {
  std::vector<slot_entry> out;
  if (!db.run("list", with_deleted ? sql::list_all_id : sql::list_id, {player},
              [&](const sql_row& row) { out.push_back(entry_from(row, row.text(0), 1)); }))
    return std::nullopt;
  return out;
}

std::optional<std::optional<slot_entry>> info(sql_session& db, std::string_view player, std::string_view name) {
  std::optional<slot_entry> out;
  if (!db.run("read", sql::info_id, {player, name},
              [&](const sql_row& row) { out = entry_from(row, std::string{name}); }))
    return std::nullopt;
  return out;
}

std::optional<std::optional<slot_bytes>> read(sql_session& db, std::string_view player, std::string_view name,
                                              std::optional<std::int64_t> version) {
  std::optional<slot_bytes> out;
  auto keep = [&](const sql_row& row) { out = slot_bytes{entry_from(row, std::string{name}), row.text(6)}; };
  const bool ran = version ? db.run("read", sql::read_version_id, {player, name, *version}, keep)
                           : db.run("read", sql::read_current_id, {player, name}, keep);
  if (!ran) return std::nullopt;
  return out;
}

std::optional<std::vector<slot_entry>> versions(sql_session& db, std::string_view player, std::string_view name) {
  std::vector<slot_entry> out;
  if (!db.run("list versions", sql::versions_id, {player, name},
              [&](const sql_row& row) { out.push_back(entry_from(row, std::string{name})); }))
    return std::nullopt;
  return out;
}

std::optional<std::optional<remembered_write>> remembered(sql_session& db, std::string_view player,
                                                          std::string_view name, std::string_view write_id) {
  std::optional<remembered_write> out;
  if (!db.run("look up the write id", sql::find_write_id, {player, name, write_id}, [&](const sql_row& row) {
        out = remembered_write{entry_from(row, std::string{name}), row.text(6), row.integer(7) != 0};
      }))
    return std::nullopt;
  return out;
}

std::optional<write_outcome> put(sql_session& db, const put_request& r) {
  if (!db.begin()) return std::nullopt;
  std::optional<std::optional<write_outcome>> earlier = answered_before(db, r.player, r.name, r.write_id, r.digest);
  if (!earlier) return std::nullopt;
  if (*earlier) {
    if (!db.rollback()) return std::nullopt;
    return durable_answer(db, r.player, std::move(**earlier));
  }
  const auto size = static_cast<std::int64_t>(r.body.size());
  std::optional<std::int64_t> version;
  const bool ran = r.expected_version
                       ? db.run("write", sql::replace_id,
                                {r.player, r.name, size, r.meta, r.saved_at_us, r.write_id, *r.expected_version},
                                first_integer(version))
                       : db.run("write", sql::create_id, {r.player, r.name, size, r.meta, r.saved_at_us, r.write_id},
                                first_integer(version));
  if (!ran) return std::nullopt;
  if (!version) {  // the precondition failed
    if (!db.rollback()) return std::nullopt;
    return moved_or_repeated(db, r.player, r.name, r.write_id, r.digest);
  }
  const bool creates = !r.expected_version;
  if (creates) {  // invariant 3
    std::optional<std::int64_t> counted;
    if (!db.run("add a player", sql::add_player_id, {r.player}) ||
        !db.run("count the slot", sql::count_slot_id, {r.player, std::int64_t{r.max_slots}}, first_integer(counted)))
      return std::nullopt;
    if (!counted) {
      if (!db.rollback()) return std::nullopt;
      return write_outcome{write_outcome::too_many_slots, std::nullopt};
    }
  }
  fail_here_if_asked(r.name);
  slot_entry e{std::string{r.name}, *version, size, r.saved_at_us, std::string{r.meta}, std::string{r.write_id}, false};
  if (!db.run("keep the version", sql::add_version_id,
              {r.player, r.name, *version, sql_value::bytes(r.body), size, r.meta, r.saved_at_us, r.write_id, r.digest,
               std::int64_t{creates}}) ||
      !db.run("prune old versions", sql::prune_id, {r.player, r.name, std::int64_t{r.keep_versions}}))
    return std::nullopt;
  if (r.max_player_bytes != 0) {  // counted with this version in and the oldest pruned
    std::optional<std::int64_t> kept;
    if (!db.run("lock the player", sql::lock_player_id, {r.player}) ||
        !db.run("count the player's bytes", sql::player_bytes_id, {r.player}, first_integer(kept)) || !kept)
      return std::nullopt;
    if (static_cast<std::uint64_t>(*kept) > r.max_player_bytes) {
      if (!db.rollback()) return std::nullopt;
      return write_outcome{write_outcome::over_quota, std::nullopt};
    }
  }
  if (!remember_write(db, r.player, r.write_id, e, r.digest, creates, r.forget_writes_before_us, r.keep_write_ids) ||
      !db.commit())
    return std::nullopt;
  return write_outcome{creates ? write_outcome::created : write_outcome::replaced, std::move(e)};
}

std::optional<write_outcome> remove(sql_session& db, const remove_request& r) {
  if (!db.begin()) return std::nullopt;
  const std::string digest = deletion_digest(r.expected_version);
  std::optional<std::optional<write_outcome>> earlier = answered_before(db, r.player, r.name, r.write_id, digest);
  if (!earlier) return std::nullopt;
  if (*earlier) {
    if (!db.rollback()) return std::nullopt;
    return durable_answer(db, r.player, std::move(**earlier));
  }
  std::optional<std::int64_t> version;
  if (!db.run("delete", sql::remove_id, {r.player, r.name, r.expected_version, r.saved_at_us, r.write_id},
              first_integer(version)))
    return std::nullopt;
  if (!version) {
    if (!db.rollback()) return std::nullopt;
    return moved_or_repeated(db, r.player, r.name, r.write_id, digest);
  }
  slot_entry e{std::string{r.name}, *version, 0, r.saved_at_us, "{}", std::string{r.write_id}, true};
  if (!db.run("count the slot", sql::uncount_slot_id, {r.player}) ||
      (r.drop_versions && !db.run("free the slot's versions", sql::drop_versions_id, {r.player, r.name})) ||
      !remember_write(db, r.player, r.write_id, e, digest, false, r.forget_writes_before_us, r.keep_write_ids) ||
      !db.commit())
    return std::nullopt;
  return write_outcome{write_outcome::deleted, std::move(e)};
}

}  // namespace savekit::server::transactions
