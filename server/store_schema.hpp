// The database schema and statements both drivers run. The statements are written once,
// with SQLite's numbered parameters (?1); the PostgreSQL driver spells them $1. They keep
// to what PostgreSQL, SQLite and the distributed PostgreSQL-compatible engines (Citus,
// CockroachDB, YugabyteDB) all accept: single-table statements that name the player in
// their WHERE clause (one shard each when tables are distributed by player), INSERT … ON
// CONFLICT … DO UPDATE … WHERE, UPDATE … RETURNING, a LIMIT/OFFSET subquery; no sequences,
// triggers, stored procedures, advisory locks, foreign keys, engine-specific types or
// functions, and no statement that touches two players (docs/server.md, "Storage").
#pragma once

#include <cstdint>

namespace savekit::server::sql {

// Raised by one at each change of the tables; a server refuses a newer database.
inline constexpr std::int64_t schema_version = 2;

// Columns of a slot entry, in the order the drivers read them: version, deleted, bytes,
// meta, saved_at, write_id (then body, for reads).
inline constexpr const char* list =
    "SELECT name, version, deleted, bytes, meta, saved_at, write_id FROM slots WHERE player = ?1 AND deleted = 0";
// The same with the deleted slots (tombstones: the deletion's version and write id), for sync.
inline constexpr const char* list_all =
    "SELECT name, version, deleted, bytes, meta, saved_at, write_id FROM slots WHERE player = ?1";
inline constexpr const char* info =
    "SELECT version, deleted, bytes, meta, saved_at, write_id FROM slots WHERE player = ?1 AND name = ?2";
inline constexpr const char* read_current =
    "SELECT s.version, s.deleted, s.bytes, s.meta, s.saved_at, s.write_id, v.body FROM slots s JOIN slot_versions v "
    "ON v.player = s.player AND v.name = s.name AND v.version = s.version "
    "WHERE s.player = ?1 AND s.name = ?2 AND s.deleted = 0";
inline constexpr const char* read_version =
    "SELECT version, CAST(0 AS SMALLINT), bytes, meta, saved_at, write_id, body FROM slot_versions "
    "WHERE player = ?1 AND name = ?2 AND version = ?3";
inline constexpr const char* versions =
    "SELECT version, CAST(0 AS SMALLINT), bytes, meta, saved_at, write_id FROM slot_versions "
    "WHERE player = ?1 AND name = ?2 ORDER BY version DESC";
// Replace version ?7 of a live slot: the compare-and-set (no row: the version moved on).
inline constexpr const char* replace =
    "UPDATE slots SET version = version + 1, bytes = ?3, meta = ?4, saved_at = ?5, write_id = ?6 "
    "WHERE player = ?1 AND name = ?2 AND version = ?7 AND deleted = 0 RETURNING version";
// Create a slot, or recreate a deleted one after its last version (no row: it is live).
inline constexpr const char* create =
    "INSERT INTO slots (player, name, version, deleted, bytes, meta, saved_at, write_id) "
    "VALUES (?1, ?2, 1, 0, ?3, ?4, ?5, ?6) ON CONFLICT (player, name) DO UPDATE SET version = slots.version + 1, "
    "deleted = 0, bytes = excluded.bytes, meta = excluded.meta, saved_at = excluded.saved_at, "
    "write_id = excluded.write_id WHERE slots.deleted = 1 RETURNING version";
// The player's count of live slots, raised only below the limit ?2 (no row: at the limit).
// The row lock also serializes one player's creations.
inline constexpr const char* add_player =
    "INSERT INTO players (player, slots) VALUES (?1, 0) ON CONFLICT (player) DO NOTHING";
inline constexpr const char* count_slot =
    "UPDATE players SET slots = slots + 1 WHERE player = ?1 AND slots < ?2 RETURNING slots";
inline constexpr const char* uncount_slot = "UPDATE players SET slots = slots - 1 WHERE player = ?1";
// digest: what the write was (precondition, metadata, bytes), so that a write id sent again
// is known for the same write or refused for another; created: it made the slot.
inline constexpr const char* add_version =
    "INSERT INTO slot_versions (player, name, version, body, bytes, meta, saved_at, write_id, digest, created) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
// What a write id made (schema 2: kept apart from the versions, which are pruned by count,
// for a time — so that a write sent again long after is still known for itself): its
// version, whether it was a deletion, the entry, the digest, whether it made the slot.
inline constexpr const char* find_write =
    "SELECT version, deleted, bytes, meta, saved_at, write_id, digest, created FROM slot_writes "
    "WHERE player = ?1 AND name = ?2 AND write_id = ?3";
inline constexpr const char* add_write =
    "INSERT INTO slot_writes (player, name, write_id, version, deleted, bytes, meta, saved_at, digest, created) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
// Forget a slot's write ids older than ?3 (Unix microseconds), and those of versions up to
// ?3 (the newest version less --write-ids-per-slot): each a range of an index, so that a
// write costs the same however many ids the slot remembers.
inline constexpr const char* prune_old_writes =
    "DELETE FROM slot_writes WHERE player = ?1 AND name = ?2 AND saved_at < ?3";
inline constexpr const char* prune_many_writes =
    "DELETE FROM slot_writes WHERE player = ?1 AND name = ?2 AND version <= ?3";
// Keep the newest ?3 versions.
inline constexpr const char* prune =
    "DELETE FROM slot_versions WHERE player = ?1 AND name = ?2 AND version <= (SELECT version FROM slot_versions "
    "WHERE player = ?1 AND name = ?2 ORDER BY version DESC LIMIT 1 OFFSET ?3)";
// Delete version ?3 of a live slot: the deletion is a version too; its kept versions stay.
inline constexpr const char* remove =
    "UPDATE slots SET version = version + 1, deleted = 1, bytes = 0, meta = '{}', saved_at = ?4, write_id = ?5 "
    "WHERE player = ?1 AND name = ?2 AND version = ?3 AND deleted = 0 RETURNING version";

// The bytes a player keeps: every kept version of their live slots (a deleted slot's kept
// versions stay for restore, and count again if it is created anew). Only with a quota,
// after lock_player: the player's row lock orders the counts of two writes to two of their
// slots, so that each sees the other's bytes (PostgreSQL's READ COMMITTED counts anew). The
// body's length, not the `bytes` column after it: SQLite reads a blob's length from the
// record's header, but would walk the blob's overflow pages to reach a column stored after
// it; PostgreSQL reads a TOASTed value's length from its pointer.
inline constexpr const char* lock_player = "UPDATE players SET slots = slots WHERE player = ?1 RETURNING slots";
// With a quota, a deletion frees its slot's bytes: its kept versions go.
inline constexpr const char* drop_versions = "DELETE FROM slot_versions WHERE player = ?1 AND name = ?2";
inline constexpr const char* player_bytes =
    "SELECT CAST(COALESCE(SUM(length(v.body)), 0) AS BIGINT) FROM slot_versions v JOIN slots s ON s.player = v.player "
    "AND "
    "s.name = v.name "
    "WHERE v.player = ?1 AND s.player = ?1 AND s.deleted = 0";

// The statements by number, in the order the drivers prepare them.
enum statement_id {
  list_id,
  info_id,
  read_current_id,
  read_version_id,
  replace_id,
  add_player_id,
  count_slot_id,
  create_id,
  add_version_id,
  prune_id,
  remove_id,
  uncount_slot_id,
  versions_id,
  find_write_id,
  add_write_id,
  prune_old_writes_id,
  prune_many_writes_id,
  list_all_id,
  lock_player_id,
  player_bytes_id,
  drop_versions_id,
  statement_count
};
inline constexpr const char* statement_text[statement_count] = {list,
                                                                info,
                                                                read_current,
                                                                read_version,
                                                                replace,
                                                                add_player,
                                                                count_slot,
                                                                create,
                                                                add_version,
                                                                prune,
                                                                remove,
                                                                uncount_slot,
                                                                versions,
                                                                find_write,
                                                                add_write,
                                                                prune_old_writes,
                                                                prune_many_writes,
                                                                list_all,
                                                                lock_player,
                                                                player_bytes,
                                                                drop_versions};

// Schema 2: write ids in a table of their own (see find_write), filled from the versions
// and deletions schema 1 kept. (A deletion's digest is "delete:N", N the version it
// replaced: plain text, so that this migration can write it.)
inline constexpr const char* schema_2 =
    "CREATE TABLE slot_writes (player TEXT NOT NULL, name TEXT NOT NULL, write_id TEXT NOT NULL, version BIGINT NOT "
    "NULL, deleted SMALLINT NOT NULL, bytes BIGINT NOT NULL, meta TEXT NOT NULL, saved_at BIGINT NOT NULL, "
    "digest TEXT NOT NULL, created SMALLINT NOT NULL, PRIMARY KEY (player, name, write_id));"
    "CREATE INDEX slot_writes_by_age ON slot_writes (player, name, saved_at);"
    "CREATE INDEX slot_writes_by_version ON slot_writes (player, name, version);"
    "INSERT INTO slot_writes (player, name, write_id, version, deleted, bytes, meta, saved_at, digest, created) "
    "SELECT player, name, write_id, version, 0, bytes, meta, saved_at, digest, created FROM slot_versions "
    "WHERE write_id <> '' ON CONFLICT (player, name, write_id) DO NOTHING;"
    "INSERT INTO slot_writes (player, name, write_id, version, deleted, bytes, meta, saved_at, digest, created) "
    "SELECT player, name, write_id, version, 1, 0, '{}', saved_at, 'delete:' || CAST(version - 1 AS TEXT), 0 "
    "FROM slots WHERE deleted = 1 AND write_id <> '' ON CONFLICT (player, name, write_id) DO NOTHING;"
    "DROP INDEX slot_versions_by_write;";

namespace sqlite {
inline constexpr const char* schema_table =
    "CREATE TABLE IF NOT EXISTS savekit_schema (id INTEGER PRIMARY KEY, version BIGINT NOT NULL)";
// migrations[n] moves a database from schema version n to n + 1.
inline constexpr const char* migrations[] = {
    "CREATE TABLE players (player TEXT NOT NULL PRIMARY KEY, slots BIGINT NOT NULL);"
    "CREATE TABLE slots (player TEXT NOT NULL, name TEXT NOT NULL, version BIGINT NOT NULL, deleted SMALLINT NOT "
    "NULL, bytes BIGINT NOT NULL, meta TEXT NOT NULL, saved_at BIGINT NOT NULL, write_id TEXT NOT NULL, "
    "PRIMARY KEY (player, name));"
    "CREATE TABLE slot_versions (player TEXT NOT NULL, name TEXT NOT NULL, version BIGINT NOT NULL, body BLOB NOT "
    "NULL, bytes BIGINT NOT NULL, meta TEXT NOT NULL, saved_at BIGINT NOT NULL, write_id TEXT NOT NULL, "
    "digest TEXT NOT NULL, created SMALLINT NOT NULL, PRIMARY KEY (player, name, version));"
    "CREATE INDEX slot_versions_by_write ON slot_versions (player, name, write_id);",
    schema_2,
};
static_assert(sizeof migrations / sizeof *migrations == schema_version);
}  // namespace sqlite

namespace postgres {
inline constexpr const char* schema_table =
    "CREATE TABLE IF NOT EXISTS savekit_schema (id INT NOT NULL PRIMARY KEY, version BIGINT NOT NULL)";
inline constexpr const char* migrations[] = {
    "CREATE TABLE players (player TEXT NOT NULL PRIMARY KEY, slots BIGINT NOT NULL);"
    "CREATE TABLE slots (player TEXT NOT NULL, name TEXT NOT NULL, version BIGINT NOT NULL, deleted SMALLINT NOT "
    "NULL, bytes BIGINT NOT NULL, meta TEXT NOT NULL, saved_at BIGINT NOT NULL, write_id TEXT NOT NULL, "
    "PRIMARY KEY (player, name));"
    "CREATE TABLE slot_versions (player TEXT NOT NULL, name TEXT NOT NULL, version BIGINT NOT NULL, body BYTEA NOT "
    "NULL, bytes BIGINT NOT NULL, meta TEXT NOT NULL, saved_at BIGINT NOT NULL, write_id TEXT NOT NULL, "
    "digest TEXT NOT NULL, created SMALLINT NOT NULL, PRIMARY KEY (player, name, version));"
    "CREATE INDEX slot_versions_by_write ON slot_versions (player, name, write_id);",
    schema_2,
};
static_assert(sizeof migrations / sizeof *migrations == schema_version);
}  // namespace postgres

}  // namespace savekit::server::sql
