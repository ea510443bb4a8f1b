#include <mutex>

#include "savekit/backend.hpp"

namespace savekit {
namespace {

class memory_backend final : public backend {
 public:
  explicit memory_backend(std::shared_ptr<memory_storage> storage) : storage_(std::move(storage)) {}

  result<loaded_state> load() override {
    std::lock_guard lock(storage_->mutex);
    loaded_state state;
    state.entries = storage_->committed;
    state.report.commits_loaded = storage_->commits;
    return state;
  }

  void commit(const change_set& changes, std::function<void(status)> done) override {
    {
      std::lock_guard lock(storage_->mutex);
      if (storage_->fail_commits) {
        done(error{errc::io_error, 0, "memory backend: commit refused (fail_commits)"});
        return;
      }
      if (changes.clear_all) storage_->committed.clear();
      for (const change& c : changes.changes) {
        if (c.erase) {
          if (auto it = storage_->committed.find(c.key); it != storage_->committed.end()) storage_->committed.erase(it);
          continue;
        }
        auto it = storage_->committed.find(c.key);
        if (it == storage_->committed.end()) it = storage_->committed.emplace(std::string{c.key}, stored_value{}).first;
        it->second.type = c.type;
        it->second.bytes.assign(c.value);
      }
      ++storage_->commits;
    }
    done({});
  }

  std::string describe() const override { return "memory"; }

 private:
  std::shared_ptr<memory_storage> storage_;
};

}  // namespace

std::unique_ptr<backend> make_memory_backend(std::shared_ptr<memory_storage> storage) {
  if (!storage) storage = std::make_shared<memory_storage>();
  return std::make_unique<memory_backend>(std::move(storage));
}

std::string_view to_string(value_type type) noexcept {
  switch (type) {
    case value_type::integer:
      return "int";
    case value_type::floating:
      return "float";
    case value_type::string:
      return "string";
    case value_type::bytes:
      return "bytes";
    case value_type::msgpack:
      return "msgpack";
    case value_type::msgpack_compact:
      return "msgpack_compact";
    case value_type::json:
      return "json";
  }
  return "unknown";
}

}  // namespace savekit
