// Saves of a chosen size, load-menu metadata and fresh folders, for the benchmarks that
// write slots.
#pragma once

#include <savekit/slots.hpp>

#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "bench_objects.hpp"

namespace bench {

// An empty folder ./BENCH/NAME (the current directory's disk; SAVEKIT_BENCH_DIR moves it).
inline std::filesystem::path fresh_folder(const std::string& bench, const std::string& name) {
  const char* configured = std::getenv("SAVEKIT_BENCH_DIR");
  std::filesystem::path dir = std::filesystem::path(configured ? configured : ".") / bench / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A SaveGame whose MessagePack map form takes about `bytes` bytes (items of ~23 bytes).
inline SaveGame save_of_about(std::size_t bytes) {
  SaveGame save{"Speed Run", 10000, {}};
  std::size_t items = bytes / 23;
  save.Inventory.reserve(items);
  for (std::size_t i = 0; i < items; ++i)
    save.Inventory.push_back({static_cast<int>(i * 7 + 100), static_cast<int>(i % 99 + 1)});
  return save;
}

// What a load menu shows of save i; thumbnail_bytes of thumbnail (list() reads past it).
inline savekit::slot_meta menu_meta(int i, std::size_t thumbnail_bytes = 0) {
  savekit::slot_meta meta{
      .title = "Chapter " + std::to_string(i), .playtime = std::chrono::seconds{i * 60}, .progress = i / 100.0};
  meta.user = {{"level", std::to_string(i)}};
  meta.thumbnail.assign(thumbnail_bytes, std::byte{0x5a});
  return meta;
}

}  // namespace bench
