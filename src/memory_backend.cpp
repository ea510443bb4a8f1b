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
      apply_changes(storage_->committed, changes);
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

}  // namespace savekit
