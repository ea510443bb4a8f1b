// The file backend among the things a real disk and a real player's machine do: links to
// the store, a program changing the working folder, files deleted or replaced underneath,
// links planted where temporary files go, private permissions, read-only folders, FIFOs
// and devices given as stores, folders created by the first save, size limits. Each test
// is a regression test for a way a save was lost or a file harmed.
#include <savekit/prefs.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/fault_fs.hpp"
#include "support/store_file.hpp"
#include "support/temp_dir.hpp"
#include "support/unprivileged.hpp"

using savekit::errc;
namespace fs = std::filesystem;

namespace {

// Small thresholds, so that a few commits compact.
constexpr savekit::file_backend_options compact_often{.compact_ratio = 1.1, .compact_min_bytes = 64};

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void spit(const fs::path& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

// Commits n values under key, enough to compact a few times with compact_often.
void commit_many(savekit::prefs& p, const std::string& key, int n) {
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(p.set_string(key, std::string(40, static_cast<char>('a' + i % 26))));
    ASSERT_TRUE(p.save());
  }
}

std::uint32_t mode_of(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0);
  return st.st_mode & 07777;
}

std::vector<std::string> names_in(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class StoreFiles : public ::testing::Test {
 protected:
  test_support::temp_dir dir_;
  fs::path path(const std::string& name) const { return dir_.path() / name; }
};

}  // namespace

TEST_F(StoreFiles, ASecondNameForTheSameFileCannotOpenItTwice) {
  // Regression: the lock file was named from the path as given, so a symbolic or hard link
  // opened the same store twice, and both "saved".
  auto real = savekit::prefs::open(path("real.prefs"));
  ASSERT_TRUE(real);
  fs::create_symlink(path("real.prefs"), path("alias.prefs"));
  fs::create_directory_symlink(dir_.path(), path("folder-link"));
  std::vector<fs::path> others = {path("alias.prefs"), path("folder-link") / "real.prefs",
                                  path("folder-link") / ".." / fs::path(dir_.path()).filename() / "real.prefs"};
  std::error_code no_hard_links;  // node's file system (the WebAssembly build) may have none
  fs::create_hard_link(path("real.prefs"), path("hard.prefs"), no_hard_links);
  if (!no_hard_links) others.push_back(path("hard.prefs"));
  for (const fs::path& other : others) {
    auto second = savekit::prefs::open(other.string());
    ASSERT_FALSE(second) << other;
    EXPECT_EQ(second.error().code(), errc::locked) << second.error().to_string();
  }
  if (no_hard_links) GTEST_SKIP() << "no hard links here: " << no_hard_links.message();
  real = savekit::error{errc::ok, 0, ""};  // closes the store
  auto through_hard_link = savekit::prefs::open(path("hard.prefs"));
  ASSERT_TRUE(through_hard_link);
  auto through_real = savekit::prefs::open(path("real.prefs"));
  ASSERT_FALSE(through_real);
  EXPECT_EQ(through_real.error().code(), errc::locked);
}

TEST_F(StoreFiles, ALinkedStoreIsCompactedAndRepairedWhereItReallyIs) {
  // Regression: compaction (and recovery's rewrite) replaced the symbolic link with a
  // regular file, so the link's target stopped receiving saves.
  fs::create_directory(path("real"));
  fs::create_symlink(path("real") / "game.prefs", path("game.prefs"));  // dangling until the first open
  {
    auto p = savekit::prefs::open(path("game.prefs"), compact_often);
    ASSERT_TRUE(p) << p.error().to_string();
    commit_many(*p, "k", 30);
    EXPECT_TRUE(p->maintenance());
  }
  EXPECT_TRUE(fs::is_symlink(path("game.prefs")));
  EXPECT_TRUE(fs::is_regular_file(path("real") / "game.prefs"));
  EXPECT_FALSE(fs::exists(path("game.prefs.tmp")));
  {
    auto p = savekit::prefs::open((path("real") / "game.prefs").string());
    ASSERT_TRUE(p);
    EXPECT_EQ(p->get_string("k"), std::string(40, static_cast<char>('a' + 29 % 26)));
  }
  // Damage the real file: the repair, too, happens beside it.
  std::string content = slurp(path("real") / "game.prefs");
  content += test_support::commit_record(999, {{false, "x", 3, "y"}}) + "garbage after it";
  content[content.size() - 20] ^= 0x55;
  spit(path("real") / "game.prefs", content);
  auto p = savekit::prefs::open(path("game.prefs"));
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->recovery().recovered);
  EXPECT_EQ(p->recovery().damaged_copy, (path("real") / "game.prefs.damaged").string());
  EXPECT_TRUE(fs::is_symlink(path("game.prefs")));
  EXPECT_FALSE(fs::exists(path("game.prefs.damaged")));
}

TEST_F(StoreFiles, ADeletedStoreFileIsWrittenBackByTheNextSave) {
  // Regression: after the file was deleted underneath, save() appended to the orphaned
  // file and returned ok; nothing was on disk.
  auto p = savekit::prefs::open(path("game.prefs"));
  ASSERT_TRUE(p);
  ASSERT_TRUE(p->set_int("level", 7));
  ASSERT_TRUE(p->save());
  fs::remove(path("game.prefs"));
  ASSERT_TRUE(p->set_int("gold", 100));
  ASSERT_TRUE(p->save());
  ASSERT_TRUE(fs::exists(path("game.prefs")));
  p = savekit::error{errc::ok, 0, ""};
  auto reopened = savekit::prefs::open(path("game.prefs"));
  ASSERT_TRUE(reopened);
  EXPECT_EQ(reopened->get_int("level"), 7);  // committed before the deletion: written back
  EXPECT_EQ(reopened->get_int("gold"), 100);
}

TEST_F(StoreFiles, AReplacedStoreFileIsNeitherWrittenToNorOverwritten) {
  // Regression: after a sync tool or a restore replaced the file, save() went on appending
  // to the old one and returned ok. The new file is someone's deliberate data: keep it,
  // and say so.
  auto p = savekit::prefs::open(path("game.prefs"));
  ASSERT_TRUE(p);
  ASSERT_TRUE(p->set_int("level", 7));
  ASSERT_TRUE(p->save());
  // A restored backup: a valid store written elsewhere, moved into place.
  std::string backup = test_support::store_header() + test_support::commit_record(0, {{false, "level", 3, "1"}}, 1);
  spit(path("backup.prefs"), backup);
  fs::rename(path("backup.prefs"), path("game.prefs"));
  ASSERT_TRUE(p->set_int("level", 8));
  auto saved = p->save();
  ASSERT_FALSE(saved);
  EXPECT_EQ(saved.error().code(), errc::store_replaced) << saved.error().to_string();
  EXPECT_TRUE(p->has_pending_changes());
  EXPECT_EQ(slurp(path("game.prefs")), backup);
}

TEST_F(StoreFiles, ARelativePathMeansTheFolderItMeantAtOpen) {
  // Regression: with a relative path, a chdir() made compaction write into the new working
  // folder; where that folder had no "saves", every compaction failed, unreported.
  test_support::temp_dir elsewhere;
  fs::path before = fs::current_path();
  fs::current_path(dir_.path());
  auto p = savekit::prefs::open("saves/game.prefs", compact_often);
  fs::current_path(elsewhere.path());
  ASSERT_TRUE(p) << p.error().to_string();
  commit_many(*p, "k", 30);
  EXPECT_TRUE(p->maintenance()) << p->maintenance().error().to_string();
  fs::current_path(before);
  EXPECT_FALSE(fs::exists(elsewhere.path() / "saves"));
  EXPECT_LT(fs::file_size(path("saves/game.prefs")), 400u);  // compacted where it is
  p = savekit::error{errc::ok, 0, ""};
  auto reopened = savekit::prefs::open(path("saves/game.prefs").string());
  ASSERT_TRUE(reopened);
  EXPECT_EQ(reopened->get_string("k"), std::string(40, static_cast<char>('a' + 29 % 26)));
}

TEST(StoreFilesModel, AFailedCompactionIsReportedAndRetriedLater) {
  // Regression: a failed compaction was dropped silently and retried never (or on every
  // commit); the log grew without bound.
  test_support::fault_fs disk;
  disk.fail_creating(".prefs.savekit-tmp");
  auto p = savekit::prefs::open(savekit::make_file_backend("/game.prefs", disk, compact_often));
  ASSERT_FALSE(p);  // a new store is itself written through a temporary file
  EXPECT_EQ(p.error().code(), errc::io_error);
  disk.fail_creating("");
  p = savekit::prefs::open(savekit::make_file_backend("/game.prefs", disk, compact_often));
  ASSERT_TRUE(p);
  disk.fail_creating(".prefs.savekit-tmp");
  commit_many(*p, "k", 30);  // commits work: the log stays intact
  auto health = p->maintenance();
  ASSERT_FALSE(health);
  EXPECT_NE(health.error().message().find("cannot create"), std::string::npos);
  disk.fail_creating("");
  commit_many(*p, "k", 30);
  EXPECT_TRUE(p->maintenance());  // a later retry succeeded
  EXPECT_LT(disk.durable_content("/game.prefs").size(), 400u);
}

TEST(StoreFilesModel, ASecondDamageKeepsTheFirstCopy) {
  // Regression: a second damage overwrote NAME.damaged.
  using test_support::commit_record;
  const std::string good = test_support::store_header() + commit_record(0, {{false, "a", 3, "1"}}, 1);
  auto damaged = [&](const std::string& marker) {
    return good + commit_record(1, {{false, "b", 3, marker}}) + commit_record(2, {{false, "c", 3, marker}});
  };
  test_support::fault_fs disk;
  std::vector<std::string> copies;
  for (const std::string marker : {"first", "second", "third"}) {
    std::string content = damaged(marker);
    content[good.size() + 10] ^= 1;  // inside the second record's payload; a third follows
    disk.plant("/game.prefs", content);
    auto p = savekit::prefs::open(savekit::make_file_backend("/game.prefs", disk));
    ASSERT_TRUE(p);
    copies.push_back(p->recovery().damaged_copy);
    EXPECT_EQ(disk.durable_content(copies.back()), content);
  }
  EXPECT_EQ(copies,
            (std::vector<std::string>{"/game.prefs.damaged", "/game.prefs.damaged-2", "/game.prefs.damaged-3"}));
  std::string first = damaged("first");
  first[good.size() + 10] ^= 1;
  EXPECT_EQ(disk.durable_content("/game.prefs.damaged"), first);
}

TEST_F(StoreFiles, LinksPlantedWhereTemporaryFilesGoAreNotFollowed) {
  // Regression: NAME.tmp and NAME.damaged.tmp were opened following symbolic links, with
  // O_TRUNC: a planted link made savekit overwrite another file.
  spit(path("victim"), "not yours");
  fs::create_symlink(path("victim"), path("game.prefs.savekit-tmp"));
  fs::create_symlink(path("victim"), path("game.prefs.damaged.savekit-tmp"));
  // And a store of the game's own called NAME.tmp is nobody's temporary file.
  {
    auto other = savekit::prefs::open(path("game.prefs.tmp"));
    ASSERT_TRUE(other);
    ASSERT_TRUE(other->set_int("gold", 500));
    ASSERT_TRUE(other->save());
  }
  {
    auto p = savekit::prefs::open(path("game.prefs"), compact_often);  // creating writes through .tmp
    ASSERT_TRUE(p) << p.error().to_string();
    commit_many(*p, "k", 10);  // and so does compaction
  }
  std::string content = slurp(path("game.prefs"));
  spit(path("game.prefs"),
       content + test_support::commit_record(1000, {}) + "xx" + test_support::commit_record(1001, {}));
  auto p = savekit::prefs::open(path("game.prefs"));  // damage: a copy through .damaged.tmp
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->recovery().damaged_copy.empty());
  EXPECT_EQ(slurp(path("victim")), "not yours");
  EXPECT_EQ(p->get_string("k"), std::string(40, static_cast<char>('a' + 9 % 26)));
  auto other = savekit::prefs::open(path("game.prefs.tmp"));
  ASSERT_TRUE(other) << other.error().to_string();
  EXPECT_EQ(other->get_int("gold"), 500);
}

TEST_F(StoreFiles, RewritesKeepTheStoresPermissions) {
  // Regression: compaction and recovery reset a 0600 store (and its damaged copy) to 0644.
  { ASSERT_TRUE(savekit::prefs::open(path("game.prefs"))); }
  fs::permissions(path("game.prefs"), fs::perms::owner_read | fs::perms::owner_write);
  {
    auto p = savekit::prefs::open(path("game.prefs"), compact_often);
    ASSERT_TRUE(p);
    commit_many(*p, "k", 20);
    EXPECT_TRUE(p->maintenance());
  }
  EXPECT_EQ(mode_of(path("game.prefs")), 0600u);
  std::string content = slurp(path("game.prefs"));
  spit(path("game.prefs"),
       content + test_support::commit_record(1000, {}) + "xx" + test_support::commit_record(1001, {}));
  auto p = savekit::prefs::open(path("game.prefs"));
  ASSERT_TRUE(p);
  ASSERT_FALSE(p->recovery().damaged_copy.empty());
  EXPECT_EQ(mode_of(p->recovery().damaged_copy), 0600u);
  EXPECT_EQ(mode_of(path("game.prefs")), 0600u);
}

TEST_F(StoreFiles, ReadOnlyOpensCreateNothing) {
  // Regression: read-only opens created NAME.lock (so they failed in a read-only folder,
  // or on a lock file of another user), and `savekit list /dev/null` created /dev/null.lock.
  {
    auto p = savekit::prefs::open(path("game.prefs"));
    ASSERT_TRUE(p->set_int("level", 3));
    ASSERT_TRUE(p->save());
  }
  fs::remove(path("game.prefs.lock"));
  const auto before = names_in(dir_.path());
  {
    auto a = savekit::prefs::open(path("game.prefs"), {.read_only = true});
    auto b = savekit::prefs::open(path("game.prefs"), {.read_only = true});  // readers share
    ASSERT_TRUE(a) << a.error().to_string();
    ASSERT_TRUE(b) << b.error().to_string();
    EXPECT_EQ(a->get_int("level"), 3);
    auto missing = savekit::prefs::open(path("missing/none.prefs"), {.read_only = true});
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code(), errc::not_found);
    auto check = savekit::check_store_file(path("game.prefs").string());
    ASSERT_TRUE(check);
    EXPECT_TRUE(check->header_ok);
  }
  EXPECT_EQ(names_in(dir_.path()), before);
  // With a writer present, a reader is told so instead of reading a commit in progress.
  auto writer = savekit::prefs::open(path("game.prefs"));
  ASSERT_TRUE(writer);
  auto reader = savekit::prefs::open(path("game.prefs"), {.read_only = true});
  ASSERT_FALSE(reader);
  EXPECT_EQ(reader.error().code(), errc::locked);
  auto check = savekit::check_store_file(path("game.prefs").string());
  ASSERT_FALSE(check);
  EXPECT_EQ(check.error().code(), errc::locked);
#if !defined(__EMSCRIPTEN__)
  auto null = savekit::prefs::open("/dev/null", {.read_only = true});
  ASSERT_FALSE(null);
  EXPECT_EQ(null.error().code(), errc::invalid_path);
  EXPECT_FALSE(fs::exists("/dev/null.lock"));
#endif
}

#if !defined(__EMSCRIPTEN__)
TEST_F(StoreFiles, ReadOnlyOpensWorkInAFolderThePlayerCannotWriteTo) {
  // Regression (audit): the read-only-folder case was never run where CI runs, as root,
  // which writes through permissions. The check now runs as nobody when this is root. A
  // store once opened for writing has a lock file; one copied in has none; one lock file
  // the player may not read: every read-only open works and creates nothing.
  {
    auto p = savekit::prefs::open(path("game.prefs"));
    ASSERT_TRUE(p->set_int("level", 3));
    ASSERT_TRUE(p->save());
  }
  fs::copy_file(path("game.prefs"), path("copied.prefs"));
  fs::copy_file(path("game.prefs"), path("private.prefs"));
  { std::ofstream(path("private.prefs.lock")); }
  fs::permissions(path("private.prefs.lock"), fs::perms::owner_read | fs::perms::owner_write);
  for (const char* store : {"game.prefs", "copied.prefs", "private.prefs"}) test_support::give_to_checker(path(store));
  const auto before = names_in(dir_.path());
  fs::permissions(dir_.path(), fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                   fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  const std::string problem = test_support::run_unprivileged([&]() -> std::string {
    if (::access(dir_.path().c_str(), W_OK) == 0) return "the folder is writable: this checks nothing";
    for (const char* store : {"game.prefs", "copied.prefs", "private.prefs"}) {
      auto p = savekit::prefs::open(path(store), {.read_only = true});
      if (!p) return std::string{store} + ": " + p.error().to_string();
      if (p->get_int("level") != 3) return std::string{store} + ": level is not 3";
      auto check = savekit::check_store_file(path(store).string());
      if (!check) return std::string{store} + " (check): " + check.error().to_string();
    }
    return "";
  });
  fs::permissions(dir_.path(), fs::perms::owner_all);
  EXPECT_EQ(problem, "");
  EXPECT_EQ(names_in(dir_.path()), before);
}

TEST_F(StoreFiles, AStoreFileOver4GiBIsRefusedWhateverTheLimitAsked) {
  // Regression (audit): the 4 GiB limit's test never reached it (removing the cap passed).
  // A store's records have 32-bit lengths, so no file over 4 GiB is one savekit wrote:
  // even with max_store_bytes at its largest it is refused at once, never read into memory.
  { std::ofstream(path("huge.prefs")) << "SKPF"; }
  fs::resize_file(path("huge.prefs"), (std::uint64_t{1} << 32) + 4096);  // sparse: no disk used
  auto p = savekit::prefs::open(path("huge.prefs"), {.max_store_bytes = UINT64_MAX, .read_only = true});
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code(), errc::store_too_large) << p.error().to_string();
  auto writable = savekit::prefs::open(path("huge.prefs"), {.max_store_bytes = UINT64_MAX});
  ASSERT_FALSE(writable);
  EXPECT_EQ(writable.error().code(), errc::store_too_large) << writable.error().to_string();
  EXPECT_EQ(fs::file_size(path("huge.prefs")), (std::uint64_t{1} << 32) + 4096);  // left as it was
}
#endif

TEST_F(StoreFiles, WhatCannotBeAStoreIsRefusedWithoutCreatingAnything) {
  // Regression: a FIFO hung the open, /dev/zero grew memory without bound, an 8 GiB sparse
  // file aborted with bad_alloc, and empty paths or trailing slashes left stray files.
  fs::current_path(dir_.path());
  for (const std::string& bad : {std::string{}, std::string{"saves/"}, std::string{"saves/."}, std::string{"saves/.."},
                                 dir_.path().string() + "/"}) {
    auto p = savekit::prefs::open(bad);
    ASSERT_FALSE(p) << "'" << bad << "'";
    EXPECT_EQ(p.error().code(), errc::invalid_path) << p.error().to_string();
  }
  EXPECT_TRUE(names_in(dir_.path()).empty());
  fs::create_directory(path("folder"));
  auto folder = savekit::prefs::open(path("folder"));
  ASSERT_FALSE(folder);
  EXPECT_EQ(folder.error().code(), errc::invalid_path) << folder.error().to_string();
#if !defined(__EMSCRIPTEN__)  // no FIFOs or devices under node
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0644), 0);
  for (bool read_only : {false, true}) {
    auto fifo = savekit::prefs::open(path("fifo"), {.read_only = read_only});
    ASSERT_FALSE(fifo);
    EXPECT_EQ(fifo.error().code(), errc::invalid_path) << fifo.error().to_string();
  }
  auto zero = savekit::prefs::open("/dev/zero", {.read_only = true});
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().code(), errc::invalid_path);
#endif
  // A sparse file far beyond the limit: refused from its size, nothing read.
  { std::ofstream sparse(path("huge.prefs")); }
#if defined(__EMSCRIPTEN__)
  const std::uintmax_t huge_size = std::uintmax_t{3} << 29;  // 1.5 GiB: node's 32-bit lengths
#else
  const std::uintmax_t huge_size = std::uintmax_t{8} << 30;  // 8 GiB
#endif
  fs::resize_file(path("huge.prefs"), huge_size);
  ASSERT_EQ(fs::file_size(path("huge.prefs")), huge_size);
  auto huge = savekit::prefs::open(path("huge.prefs"));
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().code(), errc::store_too_large) << huge.error().to_string();
  auto check = savekit::check_store_file(path("huge.prefs").string());
  ASSERT_FALSE(check);
  EXPECT_EQ(check.error().code(), errc::store_too_large);
  fs::current_path(fs::temp_directory_path());
}

TEST(StoreFilesModel, NewFoldersAreDurableBeforeTheFirstSaveIsAcknowledged) {
  // Regression: a folder created for a new store was never synced into its parent, so a
  // power cut right after the first save could lose the folder and the save with it.
  test_support::fault_fs disk;
  {
    auto p = savekit::prefs::open(savekit::make_file_backend("/home/player/saves/game.prefs", disk));
    ASSERT_TRUE(p) << p.error().to_string();
    ASSERT_TRUE(p->set_int("level", 2));
    ASSERT_TRUE(p->save());
  }
  disk.power_cut();
  auto p = savekit::prefs::open(savekit::make_file_backend("/home/player/saves/game.prefs", disk));
  ASSERT_TRUE(p) << p.error().to_string();
  EXPECT_EQ(p->get_int("level"), 2);
}

TEST(StoreFilesModel, CommitsStayWithinTheStoreSizeLimit) {
  // Regression: a commit (or compaction) over 4 GiB wrapped the 32-bit record length and
  // the store reopened empty. Every commit now fits the store's limit or is refused.
  test_support::fault_fs disk;
  const savekit::file_backend_options small{.compact_min_bytes = 1 << 20, .max_store_bytes = 4096};
  auto p = savekit::prefs::open(savekit::make_file_backend("/game.prefs", disk, small));
  ASSERT_TRUE(p);
  ASSERT_TRUE(p->set_string("a", std::string(1500, 'a')));
  ASSERT_TRUE(p->save());
  ASSERT_TRUE(p->set_string("a", std::string(1500, 'b')));
  ASSERT_TRUE(p->save());
  // The log would pass 4096 bytes: the commit is written as a whole new file instead.
  ASSERT_TRUE(p->set_string("a", std::string(1500, 'c')));
  ASSERT_TRUE(p->save());
  EXPECT_LE(disk.durable_content("/game.prefs").size(), 4096u);
  // Live data beyond the limit: refused, nothing lost, the change still pending.
  ASSERT_TRUE(p->set_string("b", std::string(3000, 'd')));
  auto refused = p->save();
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), errc::store_too_large) << refused.error().to_string();
  EXPECT_TRUE(p->has_pending_changes());
  ASSERT_TRUE(p->delete_key("a"));
  ASSERT_TRUE(p->save());
  p = savekit::error{errc::ok, 0, ""};
  auto reopened = savekit::prefs::open(savekit::make_file_backend("/game.prefs", disk, small));
  ASSERT_TRUE(reopened);
  EXPECT_FALSE(reopened->has_key("a"));
  EXPECT_EQ(reopened->get_string("b"), std::string(3000, 'd'));
  // A file beyond the limit is refused at open.
  reopened = savekit::error{errc::ok, 0, ""};
  auto strict = savekit::prefs::open(savekit::make_file_backend("/game.prefs", disk, {.max_store_bytes = 1000}));
  ASSERT_FALSE(strict);
  EXPECT_EQ(strict.error().code(), errc::store_too_large);
}

TEST_F(StoreFiles, AStoreRewrittenInPlaceIsNotAppendedTo) {
  // Regression: a restore with cp, or a sync tool writing in place, keeps the file's inode;
  // the next save appended to whatever was there now and returned ok — the store then
  // reopened as corrupt, or as the backup with the new save only in a damaged copy.
  auto p = savekit::prefs::open(path("game.prefs"));
  ASSERT_TRUE(p);
  ASSERT_TRUE(p->set_int("gold", 100));
  ASSERT_TRUE(p->save());
  const std::string saved = slurp(path("game.prefs"));
  // Emptied in place.
  fs::resize_file(path("game.prefs"), 0);
  ASSERT_TRUE(p->set_int("gold", 200));
  auto emptied = p->save();
  ASSERT_FALSE(emptied);
  EXPECT_EQ(emptied.error().code(), errc::store_replaced) << emptied.error().to_string();
  EXPECT_EQ(fs::file_size(path("game.prefs")), 0u);
  // Overwritten in place by another store of exactly the same size.
  std::string backup = test_support::store_header() + test_support::commit_record(0, {}, 1) +
                       test_support::commit_record(1, {{false, "gold", 1, std::string("\x05", 1)}});
  backup.resize(saved.size(), '\0');
  ASSERT_EQ(backup.size(), saved.size());
  {
    std::fstream out(path("game.prefs"), std::ios::in | std::ios::out | std::ios::binary);
    out.write(backup.data(), static_cast<std::streamsize>(backup.size()));
  }
  auto overwritten = p->save();
  ASSERT_FALSE(overwritten);
  EXPECT_EQ(overwritten.error().code(), errc::store_replaced) << overwritten.error().to_string();
  EXPECT_EQ(slurp(path("game.prefs")), backup);
}

TEST_F(StoreFiles, OnlyWhatMayBeCreatedIsCreated) {
  // Regression: `savekit delete` on a mistyped path created the folders, the store and its
  // lock; a folder or FIFO given as a store left a stray lock file beside it.
  auto missing = savekit::prefs::open(path("typo/saves/game.prefs"), {.create_if_missing = false});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), errc::not_found);
  EXPECT_TRUE(names_in(dir_.path()).empty());
  fs::create_directory(path("folder"));
  EXPECT_EQ(savekit::prefs::open(path("folder")).error().code(), errc::invalid_path);
  EXPECT_FALSE(fs::exists(path("folder.lock")));
#if !defined(__EMSCRIPTEN__)  // no FIFOs under node
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0644), 0);
  EXPECT_EQ(savekit::prefs::open(path("fifo")).error().code(), errc::invalid_path);
  EXPECT_FALSE(fs::exists(path("fifo.lock")));
  // A FIFO where the lock file goes hung every read-only open; now readers go on without
  // it and writers are refused.
  {
    auto p = savekit::prefs::open(path("game.prefs"));
    ASSERT_TRUE(p->set_int("gold", 1));
    ASSERT_TRUE(p->save());
  }
  fs::remove(path("game.prefs.lock"));
  ASSERT_EQ(::mkfifo(path("game.prefs.lock").c_str(), 0644), 0);
  auto reader = savekit::prefs::open(path("game.prefs"), {.read_only = true});
  ASSERT_TRUE(reader) << reader.error().to_string();
  EXPECT_EQ(reader->get_int("gold"), 1);
  EXPECT_TRUE(savekit::check_store_file(path("game.prefs").string()));
  auto writer = savekit::prefs::open(path("game.prefs"));
  ASSERT_FALSE(writer);
  EXPECT_EQ(writer.error().code(), errc::invalid_path);
#endif
}

TEST(StoreFilesModel, AFailedSaveNeverCutsWhatAnotherProgramWrote) {
  // Regression: after a save failed part-way (so the store meant to cut its partial
  // record), a restore copied in place was cut to the store's old size — by the next save
  // (which then returned ok, dropping the other machine's commit) or when the store closed.
  using test_support::commit_record;
  for (bool restore_is_longer : {false, true}) {
    SCOPED_TRACE(restore_is_longer ? "restored file extends this one" : "restored file is another store");
    test_support::fault_fs disk;
    auto p = savekit::prefs::open(savekit::make_file_backend("/game.prefs", disk));
    ASSERT_TRUE(p);
    ASSERT_TRUE(p->set_int("gold", 1));
    ASSERT_TRUE(p->save());
    const std::string before = disk.durable_content("/game.prefs");
    ASSERT_TRUE(p->set_int("gold", 2));
    disk.arm(test_support::fault_fs::fault::short_write, disk.operations());
    ASSERT_FALSE(p->save());  // half a record is in the file
    // Another machine's copy, synced in place: the same history and one more commit — or
    // a different store altogether.
    std::string restored = restore_is_longer
                               ? before + commit_record(2, {{false, "quest", 3, "done"}})
                               : test_support::store_header() + commit_record(0, {{false, "quest", 3, "done"}}, 1) +
                                     std::string(200, '\0');
    disk.overwrite_in_place("/game.prefs", restored);
    auto saved = p->save();
    ASSERT_FALSE(saved);
    EXPECT_EQ(saved.error().code(), errc::store_replaced) << saved.error().to_string();
    p = savekit::error{errc::ok, 0, ""};  // closing must not cut it either
    EXPECT_EQ(disk.durable_content("/game.prefs"), restored);
  }
}
