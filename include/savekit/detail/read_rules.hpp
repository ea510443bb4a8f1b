// The rules every reader follows, whatever the format (json.hpp, msgpack.hpp): how an
// adapted type is read, what null means in a slot, how a variant switches alternative,
// how a map takes a repeated key, and how readers account for the memory they allocate.
// A codec reads the bytes; what they mean for the object is decided here, once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "savekit/reflect.hpp"

namespace savekit::detail {

// ---- adapters ----------------------------------------------------------------------------

inline constexpr const char* adapter_refused = "value refused by savekit::adapter";

// Calls adapter<T>::from_wire, which may return void or bool; false if it refused.
template <class T, class Wire>
bool adapter_from_wire(const Wire& wire, T& value) {
  if constexpr (std::is_void_v<decltype(adapter<T>::from_wire(wire, value))>) {
    adapter<T>::from_wire(wire, value);
    return true;
  } else {
    return static_cast<bool>(adapter<T>::from_wire(wire, value));
  }
}

// An adapted T: its wire type read by read_wire(wire), then converted; refuse() reports a
// conversion the adapter refused (errc::invalid_value where the value starts).
template <class T, class ReadWire, class Refuse>
bool read_adapted(T& value, ReadWire read_wire, Refuse refuse) {
  typename adapter<T>::wire_type wire{};
  if (!read_wire(wire)) return false;
  if (!adapter_from_wire(wire, value)) return refuse();
  return true;
}

// ---- null, variants, maps -------------------------------------------------------------------

// Whether a member can hold null. In the compact form (MessagePack's arrays) null marks a
// gap, a field another version of the type does not have: a member that cannot hold
// null keeps its value.
template <class Member>
inline constexpr bool can_hold_null = is_specialization_v<Member, std::optional> || is_smart_pointer<Member>;

// Makes alternative `index` of a variant the current one — kept as it is when it already
// is, so its capacity is reused — then reads it with read(alternative).
template <class Variant, class Read>
bool read_variant_alternative(Variant& variant, std::size_t index, Read read) {
  return with_index<std::variant_size_v<Variant>>(index, [&](auto i) {
    if (variant.index() != i.value) variant.template emplace<i.value>();
    return read(std::get<i.value>(variant));
  });
}

// A map being read, entry by entry, in place: as a sequence's elements are read in place
// by index, a map's entries are by key. An entry whose key the map held before the read is
// moved back in (its node, its key, its value's capacity) and read into, so reading into a
// reused map allocates only for new keys and, as everywhere else, what the input leaves
// out of that entry keeps its value; entries whose keys the input lacks are gone when the
// read ends; a key repeated in the input is read into the same entry again.
//
// Keys written from the same map come in the order the old map holds them: entry_for
// first takes the next old entry when its key is the one read (a string key compared as
// text, before a std::string is made for it), and finds any other key only after that. A
// map type without node handles is simply refilled.
template <class Map>
class map_refill {
 public:
  using key_type = typename Map::key_type;
  using entry = typename Map::value_type;
  // What a key is compared as before it is made: text for string keys.
  using key_view = std::conditional_t<std::is_same_v<key_type, std::string>, std::string_view, key_type>;

  static constexpr bool reuses_nodes = requires { typename Map::node_type; };
  // An ordered map passes over old entries the input no longer has: those before the key
  // read, in the map's own order, asked of its comparator (whatever it is: std::less, a
  // std::greater, a case-insensitive one). Under a hash map a dropped key is simply left
  // behind, and the keys after it are found by lookup.
  static constexpr bool passes_over_dropped_keys = requires { typename Map::key_compare; };

  explicit map_refill(Map& map) : map_(map), previous_(std::move(map)), next_(previous_.begin()) {
    map_.clear();
    if constexpr (requires { map_.reserve(std::size_t{}); }) map_.reserve(previous_.size());  // hash buckets
  }
  map_refill(const map_refill&) = delete;
  map_refill& operator=(const map_refill&) = delete;

  // The entry for key, as the input spells it (text for a string key): the next old entry
  // if its key is this one, else any old entry with this key, else a new one. Only a new
  // entry makes a key: a string key is looked up through one reused string.
  entry& entry_for(const key_view& key) {
    if (entry* next = reuse_next(key)) return *next;
    if constexpr (std::is_same_v<key_view, key_type>) {
      return entry_for_key(key);
    } else {
      lookup_.assign(key);
      return entry_for_key(lookup_);
    }
  }

 private:
  // The old entry for key if it is the next one in the old map's order (an ordered map
  // first passes over old keys the input no longer has); else nullptr.
  entry* reuse_next(const key_view& key) {
    if constexpr (reuses_nodes) {
      while (next_ != previous_.end()) {
        if (key_view(next_->first) == key) return &*map_.insert(map_.end(), previous_.extract(next_++));
        if constexpr (passes_over_dropped_keys) {
          if (!before_in_map_order(next_->first, key)) return nullptr;
          ++next_;
        } else {
          return nullptr;
        }
      }
    }
    return nullptr;
  }

  // (Only when the next old key is not the one read: a string key is made only then.)
  bool before_in_map_order(const key_type& old_key, const key_view& key) {
    if constexpr (std::is_same_v<key_view, key_type>) {
      return previous_.key_comp()(old_key, key);
    } else {
      lookup_.assign(key);
      return previous_.key_comp()(old_key, lookup_);
    }
  }

  entry& entry_for_key(const key_type& key) {
    if constexpr (reuses_nodes) {
      if (auto old = previous_.find(key); old != previous_.end()) {
        if (old == next_) ++next_;
        auto node = previous_.extract(old);
        if (!(node.key() == key)) node.key() = key;  // the input's spelling, under a comparator that calls others equal
        return *map_.insert(map_.end(), std::move(node));
      }
    }
    return *map_.try_emplace(key).first;
  }

  Map& map_;
  Map previous_;
  typename Map::iterator next_;
  key_type lookup_{};  // a string key's text, for lookups that make no string
};

// ---- fields of structs -------------------------------------------------------------------

// The per-field readers of T, in a table indexed at run time in O(1): for a field read off
// the writer's order (its key already read). Fields (a codec's) has
//   read_field<I>(state, value): reads field I's value.
template <class T, class Fields, class State>
struct field_readers {
  using reader = int (*)(State&, T&);
  static constexpr auto read =
      table_of<reader, reflection<T>::size>([]<std::size_t I>() { return &Fields::template read_field<I>; });
};

// ---- memory --------------------------------------------------------------------------------

// Whether reading into holder (an optional or a smart pointer) allocates a new object.
template <class Holder>
bool reading_allocates(const Holder& holder) {
  if constexpr (is_specialization_v<Holder, std::shared_ptr>)
    return !holder || holder.use_count() > 1;
  else if constexpr (is_specialization_v<Holder, std::unique_ptr>)
    return !holder;
  else
    return false;  // an optional holds its value inline
}

// The object an optional or smart pointer holds, for a reader to read into: created
// (value-initialized) if there is none. A shared_ptr whose object has other owners gets
// a new object of its own — reading into the shared one would change it for the others
// (an equipped item that is also in the inventory, an object the game still holds).
template <class Holder>
auto& object_to_read_into(Holder& holder) {
  using Element = std::remove_cvref_t<decltype(*holder)>;
  if constexpr (is_specialization_v<Holder, std::shared_ptr>) {
    if (!holder || holder.use_count() > 1) holder = std::make_shared<Element>();
  } else if (!holder) {
    if constexpr (is_specialization_v<Holder, std::optional>)
      holder.emplace();
    else
      holder = std::make_unique<Element>();
  }
  return *holder;
}

}  // namespace savekit::detail
