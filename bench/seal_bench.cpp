// Sealed saves' costs and sizes, in one run (bench/run.sh seal):
//  - compression: ratio and speed of zstd levels 1, 3 and 19, zstd 3 with a dictionary
//    trained on other saves, zlib (level 6) and lz4, over the seeds' objects as JSON, a
//    corpus of 1,000 generated ~1 KB saves (each compressed on its own, as a game saves
//    them) and a ~10 MB world;
//  - sealing: seal and unseal of 100 B, 10 KB and 1 MB with a MAC, with AEAD, and with
//    zstd + AEAD, beside libsodium's own XChaCha20-Poly1305 and keyed BLAKE2b on the same
//    bytes (the floor: savekit must add no copies) and on the bytes a seal's tag covers
//    (the header and the context too: the format's own work, docs/sealed-format.md); a
//    seal into a reused string (seal_into) beside a seal that returns a new one.
#include <benchmark/benchmark.h>
#include <lz4.h>
#include <sodium.h>
#include <zlib.h>
#include <zstd.h>

#include <savekit/json.hpp>
#include <savekit/seal.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench_objects.hpp"
#include "save_corpus.hpp"
#include "world.hpp"

namespace {

using bench::corpus_save;
using bench::payload_of;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "seal_bench: %s\n", what.c_str());
  std::exit(1);
}

std::vector<std::string> corpus(unsigned first, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(corpus_save(first + static_cast<unsigned>(i)));
  return out;
}

const std::vector<std::string>& data_set(int which) {
  static const std::vector<std::string> sets[] = {
      {savekit::to_json(seeds::seed_status())},
      {savekit::to_json(seeds::seed_save_game())},
      corpus(1'000'000, 1000),                        // the dictionary is trained on other saves (seeds from 0)
      {savekit::to_json(bench::make_world(28, 25))},  // about 10 MB
  };
  return sets[which];
}
const char* const data_names[] = {"Status (seed A)", "SaveGame (seed B)", "1,000 saves of ~1 KB", "world"};

const savekit::zstd_dictionary& dictionary() {
  static const savekit::zstd_dictionary d = [] {
    auto trained = savekit::zstd_dictionary::train(corpus(0, 2000), 16 * 1024);
    if (!trained) fail(trained.error().to_string());
    return std::move(*trained);
  }();
  return d;
}

enum codec : int { zstd1, zstd3, zstd19, zstd3_dictionary, zlib6, lz4 };
const char* const codec_names[] = {"zstd 1", "zstd 3", "zstd 19", "zstd 3 + dictionary", "zlib 6", "lz4"};

std::size_t compress_one(codec c, const std::string& in, std::string& out, ZSTD_CCtx* cctx) {
  switch (c) {
    case zstd1:
    case zstd3:
    case zstd19:
    case zstd3_dictionary: {
      out.resize(ZSTD_compressBound(in.size()));
      const int level = c == zstd1 ? 1 : c == zstd19 ? 19 : 3;
      // With a dictionary digested once (a ZSTD_CDict), as a game would keep it.
      static ZSTD_CDict* const prepared = ZSTD_createCDict(dictionary().bytes().data(), dictionary().bytes().size(), 3);
      std::size_t n = c == zstd3_dictionary
                          ? ZSTD_compress_usingCDict(cctx, out.data(), out.size(), in.data(), in.size(), prepared)
                          : ZSTD_compressCCtx(cctx, out.data(), out.size(), in.data(), in.size(), level);
      if (ZSTD_isError(n)) fail(ZSTD_getErrorName(n));
      return n;
    }
    case zlib6: {
      uLongf n = compressBound(static_cast<uLong>(in.size()));
      out.resize(n);
      if (compress2(reinterpret_cast<Bytef*>(out.data()), &n, reinterpret_cast<const Bytef*>(in.data()),
                    static_cast<uLong>(in.size()), 6) != Z_OK)
        fail("zlib");
      return n;
    }
    case lz4: {
      out.resize(static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(in.size()))));
      int n = LZ4_compress_default(in.data(), out.data(), static_cast<int>(in.size()), static_cast<int>(out.size()));
      if (n <= 0) fail("lz4");
      return static_cast<std::size_t>(n);
    }
  }
  return 0;
}

void decompress_one(codec c, const std::string& packed, std::string& out, ZSTD_DCtx* dctx) {
  switch (c) {
    case zstd1:
    case zstd3:
    case zstd19:
    case zstd3_dictionary: {
      static ZSTD_DDict* const prepared = ZSTD_createDDict(dictionary().bytes().data(), dictionary().bytes().size());
      std::size_t n =
          c == zstd3_dictionary
              ? ZSTD_decompress_usingDDict(dctx, out.data(), out.size(), packed.data(), packed.size(), prepared)
              : ZSTD_decompressDCtx(dctx, out.data(), out.size(), packed.data(), packed.size());
      if (ZSTD_isError(n) || n != out.size()) fail("zstd decompression");
      return;
    }
    case zlib6: {
      uLongf n = static_cast<uLongf>(out.size());
      if (uncompress(reinterpret_cast<Bytef*>(out.data()), &n, reinterpret_cast<const Bytef*>(packed.data()),
                     static_cast<uLong>(packed.size())) != Z_OK ||
          n != out.size())
        fail("zlib decompression");
      return;
    }
    case lz4:
      if (LZ4_decompress_safe(packed.data(), out.data(), static_cast<int>(packed.size()),
                              static_cast<int>(out.size())) != static_cast<int>(out.size()))
        fail("lz4 decompression");
      return;
  }
}

// state.range(0): codec; range(1): data set. Counters: ratio (original ÷ compressed, summed).
void BM_Compress(benchmark::State& state) {
  const auto c = static_cast<codec>(state.range(0));
  const auto& inputs = data_set(static_cast<int>(state.range(1)));
  if (c == zstd3_dictionary && state.range(1) != 2) return state.SkipWithError("dictionaries are for small saves");
  std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> cctx{ZSTD_createCCtx(), ZSTD_freeCCtx};
  std::string out;
  std::size_t original = 0, packed = 0;
  for (const auto& in : inputs) original += in.size(), packed += compress_one(c, in, out, cctx.get());
  for (auto _ : state)
    for (const auto& in : inputs) benchmark::DoNotOptimize(compress_one(c, in, out, cctx.get()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * original));
  state.counters["ratio"] = static_cast<double>(original) / static_cast<double>(packed);
  state.counters["original_bytes"] = static_cast<double>(original);
  state.counters["packed_bytes"] = static_cast<double>(packed);
  state.SetLabel(std::string{codec_names[c]} + " | " + data_names[state.range(1)]);
}

void BM_Decompress(benchmark::State& state) {
  const auto c = static_cast<codec>(state.range(0));
  const auto& inputs = data_set(static_cast<int>(state.range(1)));
  if (c == zstd3_dictionary && state.range(1) != 2) return state.SkipWithError("dictionaries are for small saves");
  std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> cctx{ZSTD_createCCtx(), ZSTD_freeCCtx};
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> dctx{ZSTD_createDCtx(), ZSTD_freeDCtx};
  std::vector<std::string> packed;
  std::size_t original = 0;
  for (const auto& in : inputs) {
    std::string out;
    out.resize(compress_one(c, in, out, cctx.get()));
    packed.push_back(std::move(out));
    original += in.size();
  }
  std::vector<std::string> outputs;
  for (const auto& in : inputs) outputs.emplace_back(in.size(), '\0');
  for (auto _ : state)
    for (std::size_t i = 0; i < packed.size(); ++i) decompress_one(c, packed[i], outputs[i], dctx.get());
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (outputs[i] != inputs[i]) fail("a round trip differs");
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * original));
  state.SetLabel(std::string{codec_names[c]} + " | " + data_names[state.range(1)]);
}

void codec_args(benchmark::internal::Benchmark* b) {
  for (int set = 0; set < 4; ++set)
    for (int c = zstd1; c <= lz4; ++c)
      if (c != zstd3_dictionary || set == 2) b->Args({c, set});
}
BENCHMARK(BM_Compress)->Apply(codec_args)->Name("compress");
BENCHMARK(BM_Decompress)->Apply(codec_args)->Name("decompress");

// ---- sealing ----

enum seal_way : int {
  mac,
  aead,
  zstd_aead,
  raw_aead,
  raw_mac,
  zstd_dictionary_mac,
  mac_into,
  aead_into,
  raw_aead_covered,
  raw_mac_covered
};
const char* const seal_names[] = {"seal: MAC",
                                  "seal: AEAD",
                                  "seal: zstd 3 + AEAD",
                                  "libsodium AEAD alone",
                                  "libsodium keyed BLAKE2b alone",
                                  "seal: zstd 3 with a dictionary + MAC",
                                  "seal_into: MAC",
                                  "seal_into: AEAD",
                                  "libsodium AEAD, header and context as associated data",
                                  "libsodium keyed BLAKE2b over header, context and body"};

const savekit::keyring& keys() {
  static const savekit::keyring ring = [] {
    auto key = savekit::seal_key::generate(1);
    if (!key) fail(key.error().to_string());
    return savekit::keyring{std::move(*key)};
  }();
  return ring;
}
const savekit::seal_context where{.name = "slot1", .schema_version = 3, .player = "player-42"};

// The bytes a seal's tag covers before the body (docs/sealed-format.md): the 24-byte header,
// the nonce with AEAD, and the context — its label, then name, schema version, player and
// binding, each string after its 4-byte length.
std::size_t covered_before_body(const savekit::seal_context& c, bool with_nonce) {
  const std::size_t context = std::string_view{"savekit sealed save v1"}.size() + 4 + c.name.size() + 4 + 4 +
                              c.player.size() + 4 + c.binding.size();
  return savekit::sealed_header_bytes + (with_nonce ? savekit::sealed_nonce_bytes : 0) + context;
}

savekit::seal_options options_of(seal_way way) {
  savekit::seal_options o;
  o.compression = way == zstd_aead || way == zstd_dictionary_mac ? savekit::seal_compression::zstd
                                                                 : savekit::seal_compression::none;
  o.protection = way == mac || way == mac_into || way == zstd_dictionary_mac ? savekit::seal_protection::mac
                                                                             : savekit::seal_protection::aead;
  if (way == zstd_dictionary_mac) o.dictionary = &dictionary();
  return o;
}

// range(0): way; range(1): bytes. Seal, or the library alone on the same bytes.
void BM_Seal(benchmark::State& state) {
  const auto way = static_cast<seal_way>(state.range(0));
  const std::string plain = payload_of(static_cast<std::size_t>(state.range(1)));
  if (sodium_init() < 0) fail("libsodium");
  std::string out(plain.size() + 64, '\0');
  const unsigned char* key = keys().current()->bytes().data();
  unsigned char nonce[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES] = {};
  // The covered floors: associated data of the length a seal's, or one buffer of all it hashes.
  const std::string associated(covered_before_body(where, true), 'h');
  const std::string hashed = std::string(covered_before_body(where, false), 'h') + plain;
  const auto* aad = way == raw_aead_covered ? reinterpret_cast<const unsigned char*>(associated.data()) : nullptr;
  const std::size_t aad_bytes = way == raw_aead_covered ? associated.size() : 0;
  const std::string& mac_input = way == raw_mac_covered ? hashed : plain;
  std::string reused;
  for (auto _ : state) {
    if (way == raw_aead || way == raw_aead_covered) {
      unsigned long long n = 0;
      randombytes_buf(nonce, sizeof nonce);  // as a seal does
      crypto_aead_xchacha20poly1305_ietf_encrypt(reinterpret_cast<unsigned char*>(out.data()), &n,
                                                 reinterpret_cast<const unsigned char*>(plain.data()), plain.size(),
                                                 aad, aad_bytes, nullptr, nonce, key);
      benchmark::DoNotOptimize(n);
    } else if (way == raw_mac || way == raw_mac_covered) {
      crypto_generichash(reinterpret_cast<unsigned char*>(out.data()), 32,
                         reinterpret_cast<const unsigned char*>(mac_input.data()), mac_input.size(), key, 32);
      benchmark::DoNotOptimize(out.data());
    } else if (way == mac_into || way == aead_into) {
      if (auto sealed = savekit::seal_into(reused, plain, options_of(way), where, &keys()); !sealed)
        fail(sealed.error().to_string());
      benchmark::DoNotOptimize(reused.data());
    } else {
      auto sealed = savekit::seal(plain, options_of(way), where, &keys());
      if (!sealed) fail(sealed.error().to_string());
      benchmark::DoNotOptimize(sealed->data());
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * plain.size()));
  state.SetLabel(seal_names[way]);
}

void BM_Unseal(benchmark::State& state) {
  const auto way = static_cast<seal_way>(state.range(0));
  const std::string plain = payload_of(static_cast<std::size_t>(state.range(1)));
  auto sealed = savekit::seal(plain, options_of(way), where, &keys());
  if (!sealed) fail(sealed.error().to_string());
  savekit::unseal_options open;
  open.dictionaries = {&dictionary()};
  for (auto _ : state) {
    auto opened = savekit::unseal(*sealed, &keys(), where, open);
    if (!opened) fail(opened.error().to_string());
    benchmark::DoNotOptimize(opened->data());
  }
  if (*savekit::unseal(*sealed, &keys(), where, open) != plain) fail("unseal differs");
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * plain.size()));
  state.SetLabel(seal_names[way]);
}

void seal_args(benchmark::internal::Benchmark* b) {
  for (std::int64_t bytes : {100, 1024, 10 * 1024, 1024 * 1024})
    for (int way = mac; way <= raw_mac_covered; ++way) b->Args({way, bytes});
}
void unseal_args(benchmark::internal::Benchmark* b) {
  for (std::int64_t bytes : {100, 1024, 10 * 1024, 1024 * 1024})
    for (int way : {mac, aead, zstd_aead, zstd_dictionary_mac}) b->Args({way, bytes});
}
BENCHMARK(BM_Seal)->Apply(seal_args)->Name("seal");
BENCHMARK(BM_Unseal)->Apply(unseal_args)->Name("unseal");

}  // namespace

BENCHMARK_MAIN();
