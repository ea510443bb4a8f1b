#include "savekit/document.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <unordered_map>

#include "savekit/detail/msgpack_wire.hpp"
#include "savekit/detail/output.hpp"
#include "savekit/detail/path.hpp"
#include "savekit/msgpack.hpp"
#include "savekit/transcode.hpp"

namespace savekit {

namespace {

using detail::container_kind;
using detail::msgpack_cursor;
using detail::payload_kind;
using detail::probe;

// What a node costs the memory budget (as the codecs count an element).
constexpr std::uint64_t node_cost = sizeof(document) + 16;

bool read_value(msgpack_cursor& c, document& out);

bool read_key(msgpack_cursor& c, std::string& key) {
  const unsigned char* at = c.p;
  std::string_view text;
  payload_kind kind{};
  if (probe found = detail::read_msgpack_payload(c, text, kind); found != probe::other_type) {
    if (found == probe::failed) return false;
    if (kind == payload_kind::bin) return c.fail(errc::unsupported_type, at, "a binary map key has no document form");
    key.assign(text);
    return true;
  }
  std::uint64_t v = 0;
  bool negative = false;
  if (probe found = c.integer(v, negative); found != probe::other_type) {
    if (found == probe::failed) return false;
    key = negative ? std::to_string(static_cast<std::int64_t>(v)) : std::to_string(v);  // as JSON writes it
    return true;
  }
  return c.fail(errc::unsupported_type, at, "only string and integer map keys have a document form");
}

bool read_value(msgpack_cursor& c, document& out) {
  if (!c.more()) return false;
  const unsigned char* at = c.p;
  const std::uint8_t b = *c.p;
  namespace mp = detail::mp;
  if (b == mp::nil || b == mp::true_ || b == mp::false_) {
    ++c.p;
    out = b == mp::nil ? document{} : document{b == mp::true_};
    return true;
  }
  if (b == mp::never_used) return c.fail(errc::invalid_msgpack, at, "byte 0xc1 is never used in MessagePack");
  std::uint64_t v = 0;
  bool negative = false;
  if (probe found = c.integer(v, negative); found != probe::other_type) {
    if (found == probe::failed) return false;
    out = negative ? document{static_cast<std::int64_t>(v)} : document{v};
    return true;
  }
  double d = 0;
  bool single = false;
  if (probe found = c.floating(d, single); found != probe::other_type) {
    if (found == probe::failed) return false;
    out = document{d};
    return true;
  }
  std::string_view payload;
  payload_kind payload_type{};
  if (probe found = detail::read_msgpack_payload(c, payload, payload_type); found != probe::other_type) {
    if (found == probe::failed) return false;
    if (payload_type == payload_kind::bin) {
      const auto* first = reinterpret_cast<const std::byte*>(payload.data());
      out = document{std::vector<std::byte>(first, first + payload.size())};
    } else {
      out = document{std::string{payload}};
    }
    return true;
  }
  std::uint64_t count = 0;
  container_kind kind{};
  if (probe found = c.container(count, kind); found != probe::read)
    return found == probe::failed ? false
                                  : c.fail(errc::unsupported_type, at, "MessagePack ext types have no document form");
  if (!c.enter(at)) return false;
  if (kind == container_kind::array) {
    document::array_type elements;
    elements.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(count, c.remaining())));
    for (std::uint64_t i = 0; i < count; ++i) {
      if (!c.spend(node_cost, c.p)) return false;
      elements.emplace_back();
      if (!read_value(c, elements.back())) {
        c.err.prepend_path(detail::path_index(i));
        return false;
      }
    }
    out = document{std::move(elements)};
  } else {
    document::object_type members;
    members.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(count, c.remaining() / 2)));
    // A key given twice: the last one wins, as the typed readers do. Found through an index
    // once the object is not small, so reading stays linear in its size.
    std::unordered_map<std::string, std::size_t> index;
    for (std::uint64_t i = 0; i < count; ++i) {
      if (!c.more() || !c.spend(node_cost, c.p)) return false;
      std::string key;
      if (!read_key(c, key)) return false;
      document value;
      if (!read_value(c, value)) {
        c.err.prepend_path(detail::path_key(key));
        return false;
      }
      std::size_t same = members.size();
      if (index.empty() && members.size() < 16) {
        for (std::size_t k = 0; k < members.size(); ++k)
          if (members[k].first == key) same = k;
      } else {
        if (index.empty())
          for (std::size_t k = 0; k < members.size(); ++k) index.emplace(members[k].first, k);
        if (auto it = index.find(key); it != index.end()) same = it->second;
      }
      if (same != members.size()) {
        members[same].second = std::move(value);
        continue;
      }
      if (!index.empty()) index.emplace(key, members.size());
      members.emplace_back(std::move(key), std::move(value));
    }
    out = document{std::move(members)};
  }
  c.leave();
  return true;
}

template <class Container>
void write_value(detail::msgpack_writer<Container>& w, const document& d) {
  switch (d.type()) {
    case document::kind::null:
      w.byte(detail::mp::nil);
      return;
    case document::kind::boolean:
      w.byte(*d.as_bool() ? detail::mp::true_ : detail::mp::false_);
      return;
    case document::kind::integer:
      w.signed_integer(*d.as_int());
      return;
    case document::kind::unsigned_integer:
      w.unsigned_integer(*d.as_uint());
      return;
    case document::kind::floating:
      w.float64(*d.as_double());
      return;
    case document::kind::string:
      w.str(d.as_string()->data(), d.as_string()->size());
      return;
    case document::kind::bytes:
      w.bin(d.as_bytes()->data(), d.as_bytes()->size());
      return;
    case document::kind::array:
      w.array_header(d.elements().size());
      for (const document& e : d.elements()) write_value(w, e);
      return;
    case document::kind::object:
      w.map_header(d.members().size());
      for (const auto& [key, value] : d.members()) {
        w.str(key.data(), key.size());
        write_value(w, value);
      }
      return;
  }
}

// One step of a path: a key, or an element's index.
struct path_step {
  std::string_view key;
  std::size_t index = 0;
  bool is_index = false;
};

// "a.b[2].c" as steps; false if it does not parse.
bool parse_path(std::string_view path, std::vector<path_step>& steps) {
  steps.clear();
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '[') {
      std::size_t close = path.find(']', i);
      if (close == std::string_view::npos || close == i + 1) return false;
      path_step step{{}, 0, true};
      auto [end, ec] = std::from_chars(path.data() + i + 1, path.data() + close, step.index);
      if (ec != std::errc{} || end != path.data() + close) return false;
      steps.push_back(step);
      i = close + 1;
      if (i < path.size() && path[i] == '.') {
        if (++i == path.size()) return false;
      }
      continue;
    }
    std::size_t stop = path.find_first_of(".[", i);
    if (stop == std::string_view::npos) stop = path.size();
    if (stop == i) return false;
    steps.push_back({path.substr(i, stop - i), 0, false});
    i = stop;
    if (i < path.size() && path[i] == '.') {
      if (++i == path.size()) return false;
    }
  }
  return !steps.empty();
}

error bad_path(std::string_view path) {
  return error{errc::invalid_value, 0,
               "'" + std::string{path} + "' is not a path (keys joined by '.', [n] for elements)"};
}

}  // namespace

// ---- whole documents ----

result<document> document::from_msgpack(std::span<const std::byte> bytes, document_limits options) {
  msgpack_cursor c{bytes.data(), bytes.size(), options.max_depth};
  c.memory_left = options.max_memory;
  document out;
  if (!read_value(c, out) || !c.finish()) return std::move(c.err).take();
  return out;
}

result<document> document::from_msgpack(std::string_view bytes, document_limits options) {
  return from_msgpack(detail::as_byte_span(bytes), options);
}

result<document> document::from_json(std::string_view text, document_limits options) {
  // The transcoder validates JSON fully (UTF-8, numbers, depth); the document is read from
  // what it writes, so both formats go through one reader.
  result<std::vector<std::byte>> packed = json_to_msgpack(text, {.max_depth = options.max_depth});
  if (!packed) return std::move(packed).error();
  return from_msgpack(std::span<const std::byte>{*packed}, options);
}

std::vector<std::byte> document::to_msgpack() const {
  std::vector<std::byte> out;
  detail::msgpack_writer<std::vector<std::byte>> w{detail::output<std::vector<std::byte>>{out}};
  write_value(w, *this);
  w.out.finish();
  return out;
}

void document::to_msgpack(std::string& out) const {
  detail::msgpack_writer<std::string> w{detail::output<std::string>{out}};
  write_value(w, *this);
  w.out.finish();
}

result<std::string> document::to_json(bool pretty) const {
  std::vector<std::byte> packed = to_msgpack();
  json_options options;
  options.pretty = pretty;
  options.max_depth = ~std::uint32_t{0};  // whatever depth the document has
  return msgpack_to_json(std::span<const std::byte>{packed}, options);
}

// ---- values ----

bool document::is_number() const {
  kind k = type();
  return k == kind::integer || k == kind::unsigned_integer || k == kind::floating;
}

std::optional<std::int64_t> document::as_int() const {
  if (const auto* v = std::get_if<std::int64_t>(&value_)) return *v;
  return std::nullopt;
}

std::optional<std::uint64_t> document::as_uint() const {
  if (const auto* v = std::get_if<std::uint64_t>(&value_)) return *v;
  if (const auto* v = std::get_if<std::int64_t>(&value_); v && *v >= 0) return static_cast<std::uint64_t>(*v);
  return std::nullopt;
}

std::optional<double> document::as_double() const {
  if (const auto* v = std::get_if<double>(&value_)) return *v;
  if (const auto* v = std::get_if<std::int64_t>(&value_)) return static_cast<double>(*v);
  if (const auto* v = std::get_if<std::uint64_t>(&value_)) return static_cast<double>(*v);
  return std::nullopt;
}

// ---- arrays and objects ----

const document::array_type& document::elements() const {
  static const array_type none;
  const auto* v = std::get_if<array_type>(&value_);
  return v ? *v : none;
}

const document::object_type& document::members() const {
  static const object_type none;
  const auto* v = std::get_if<object_type>(&value_);
  return v ? *v : none;
}

std::size_t document::size() const {
  if (const auto* a = std::get_if<array_type>(&value_)) return a->size();
  if (const auto* o = std::get_if<object_type>(&value_)) return o->size();
  return 0;
}

const document* document::find(std::string_view key) const {
  for (const auto& [k, v] : members())
    if (k == key) return &v;
  return nullptr;
}

document* document::find(std::string_view key) {
  return const_cast<document*>(static_cast<const document&>(*this).find(key));
}

document& document::operator[](std::string_view key) {
  if (is_null()) value_ = object_type{};
  object_type* m = as_object();
  if (!m) detail::bad_result_access("document::operator[](key) of a value that is not an object");
  if (document* found = find(key)) return *found;
  m->emplace_back(std::string{key}, document{});
  return m->back().second;
}

const document* document::element(std::size_t index) const {
  const array_type& e = elements();
  return index < e.size() ? &e[index] : nullptr;
}

status document::set(std::string_view key, document value) {
  if (!is_object() && !is_null())
    return error{errc::type_mismatch, 0, "set('" + std::string{key} + "') on a value that is not an object"};
  (*this)[key] = std::move(value);
  return {};
}

status document::push_back(document value) {
  if (is_null()) value_ = array_type{};
  array_type* e = as_array();
  if (!e) return error{errc::type_mismatch, 0, "push_back on a value that is not an array"};
  e->push_back(std::move(value));
  return {};
}

bool document::remove(std::string_view key) {
  if (!is_object()) return false;
  object_type& m = *as_object();
  auto it = std::find_if(m.begin(), m.end(), [&](const auto& e) { return e.first == key; });
  if (it == m.end()) return false;
  m.erase(it);
  return true;
}

bool document::rename(std::string_view from, std::string_view to) {
  if (!is_object()) return false;
  object_type& m = *as_object();
  auto it = std::find_if(m.begin(), m.end(), [&](const auto& e) { return e.first == from; });
  if (it == m.end()) return false;
  if (from == to) return true;
  std::string new_key{to};
  std::size_t at = static_cast<std::size_t>(it - m.begin());
  auto clash = std::find_if(m.begin(), m.end(), [&](const auto& e) { return e.first == new_key; });
  if (clash != m.end()) {
    std::size_t clash_at = static_cast<std::size_t>(clash - m.begin());
    m.erase(clash);
    if (clash_at < at) --at;
  }
  m[at].first = std::move(new_key);
  return true;
}

// ---- paths ----

const document* document::at(std::string_view path) const {
  std::vector<path_step> steps;
  if (!parse_path(path, steps)) return nullptr;
  const document* d = this;
  for (const path_step& step : steps) {
    if (step.is_index) {
      if (!d->is_array() || step.index >= d->size()) return nullptr;
      d = &d->elements()[step.index];
    } else {
      d = d->find(step.key);
      if (!d) return nullptr;
    }
  }
  return d;
}

document* document::at(std::string_view path) {
  return const_cast<document*>(static_cast<const document&>(*this).at(path));
}

status document::put(std::string_view path, document value) {
  std::vector<path_step> steps;
  if (!parse_path(path, steps)) return bad_path(path);
  document* d = this;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const path_step& step = steps[i];
    if (step.is_index) {
      if (!d->is_array() || step.index >= d->size())
        return error{errc::invalid_value, 0, "'" + std::string{path} + "': no element " + std::to_string(step.index)};
      d = &(*d->as_array())[step.index];
    } else {
      if (!d->is_object() && !d->is_null())
        return error{
            errc::type_mismatch, 0,
            "'" + std::string{path} + "': '" + std::string{step.key} + "' is inside a value that is not an object"};
      d = &(*d)[step.key];
    }
  }
  *d = std::move(value);
  return {};
}

bool document::erase(std::string_view path) {
  std::vector<path_step> steps;
  if (!parse_path(path, steps)) return false;
  document* parent = this;
  for (std::size_t i = 0; i + 1 < steps.size(); ++i) {
    const path_step& step = steps[i];
    parent = step.is_index
                 ? (parent->is_array() && step.index < parent->size() ? &(*parent->as_array())[step.index] : nullptr)
                 : parent->find(step.key);
    if (!parent) return false;
  }
  const path_step& last = steps.back();
  if (!last.is_index) return parent->remove(last.key);
  if (!parent->is_array() || last.index >= parent->size()) return false;
  array_type& e = *parent->as_array();
  e.erase(e.begin() + static_cast<std::ptrdiff_t>(last.index));
  return true;
}

status document::move(std::string_view from, std::string_view to) {
  const document* source = at(from);
  if (!source) return error{errc::not_found, 0, "'" + std::string{from} + "' is not in the document"};
  if (from == to) return {};
  // Into itself, or onto an element: put() replaces an element, so the move would drop one
  // (and indexes shift when `from` leaves the same array).
  if (to.size() > from.size() && to.substr(0, from.size()) == from &&
      (to[from.size()] == '.' || to[from.size()] == '['))
    return error{errc::invalid_value, 0, "cannot move '" + std::string{from} + "' into itself"};
  if (!to.empty() && to.back() == ']')
    return error{errc::invalid_value, 0,
                 "cannot move onto an element ('" + std::string{to} + "'): it would replace it; use put"};
  document copy = *source;
  document before = *this;  // to leave the document as it was if `to` cannot be written
  if (!erase(from)) return error{errc::not_found, 0, "'" + std::string{from} + "' is not in the document"};
  if (status put_there = put(to, std::move(copy)); !put_there) {
    *this = std::move(before);
    return put_there;
  }
  return {};
}

// ---- migrations ----

status migrate(document& d, const std::vector<migration_step>& steps, std::uint32_t from_version,
               std::uint32_t to_version) {
  std::vector<const migration_step*> order;
  for (const migration_step& step : steps)
    if (step.to_version > from_version && step.to_version <= to_version) order.push_back(&step);
  std::stable_sort(order.begin(), order.end(),
                   [](const migration_step* a, const migration_step* b) { return a->to_version < b->to_version; });
  for (std::size_t i = 1; i < order.size(); ++i)
    if (order[i]->to_version == order[i - 1]->to_version)
      return error{errc::invalid_value, 0,
                   "two migration steps lead to version " + std::to_string(order[i]->to_version)};
  for (const migration_step* step : order) {
    if (!step->apply) continue;
    if (status done = step->apply(d); !done) {
      error e = std::move(done).error();
      return error{e.code(), e.offset(),
                   "migrating to version " + std::to_string(step->to_version) + ": " + e.message(), e.path()};
    }
  }
  return {};
}

}  // namespace savekit
