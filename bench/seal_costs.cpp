// What sealing costs, natively and as WebAssembly, from one source (bench/run.sh seal-wasm
// builds it both ways and runs the two in turn): seal and unseal of 100 B, 10 KB and 1 MB
// saves with a MAC, with AEAD and with zstd 3 + AEAD, beside libsodium's own keyed BLAKE2b
// and XChaCha20-Poly1305 on the same bytes. Google Benchmark is not built for WebAssembly,
// so this is the seed studies' kind of harness: each case repeated until it has run for
// --min-ms, the time per operation printed as one JSON object per line.
//   seal_costs [--min-ms N]
#include <sodium.h>

#include <savekit/seal.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "save_corpus.hpp"
#include "time_per_call.hpp"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "seal_costs: %s\n", what.c_str());
  std::exit(1);
}

enum class way { mac, aead, zstd_aead, libsodium_blake2b, libsodium_aead };
const char* name_of(way w) {
  switch (w) {
    case way::mac:
      return "seal: MAC";
    case way::aead:
      return "seal: AEAD";
    case way::zstd_aead:
      return "seal: zstd 3 + AEAD";
    case way::libsodium_blake2b:
      return "libsodium keyed BLAKE2b alone";
    case way::libsodium_aead:
      return "libsodium AEAD alone";
  }
  return "";
}

savekit::seal_options options_of(way w) {
  savekit::seal_options o;
  o.compression = w == way::zstd_aead ? savekit::seal_compression::zstd : savekit::seal_compression::none;
  o.protection = w == way::mac ? savekit::seal_protection::mac : savekit::seal_protection::aead;
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  double min_ms = 100;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string{argv[i]} == "--min-ms") min_ms = std::atof(argv[i + 1]);
  if (sodium_init() < 0) fail("libsodium");
  auto key = savekit::seal_key::generate(1);
  if (!key) fail(key.error().to_string());
  const savekit::keyring keys{*key};
  const unsigned char* raw_key = keys.current()->bytes().data();
  const savekit::seal_context where{.name = "slot1", .schema_version = 3, .player = "player-42"};
#ifdef __EMSCRIPTEN__
  const char* target = "wasm";
#else
  const char* target = "native";
#endif
  for (std::size_t bytes : {std::size_t{100}, std::size_t{10 * 1024}, std::size_t{1024 * 1024}}) {
    const std::string plain = bench::payload_of(bytes);
    std::string out(plain.size() + 64, '\0');
    unsigned char nonce[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES] = {};
    auto report = [&](const char* op, way w, double ns) {
      std::printf("{\"target\":\"%s\",\"op\":\"%s\",\"way\":\"%s\",\"bytes\":%zu,\"ns\":%.1f}\n", target, op,
                  name_of(w), bytes, ns);
    };
    for (way w : {way::mac, way::aead, way::zstd_aead}) {
      auto sealed = savekit::seal(plain, options_of(w), where, &keys);
      if (!sealed) fail(sealed.error().to_string());
      auto opened = savekit::unseal(*sealed, &keys, where);
      if (!opened || *opened != plain) fail("unseal differs");
      report("seal", w, bench::time_per_call(min_ms, [&] {
               auto s = savekit::seal(plain, options_of(w), where, &keys);
               if (!s) fail(s.error().to_string());
             }));
      report("unseal", w, bench::time_per_call(min_ms, [&] {
               auto o = savekit::unseal(*sealed, &keys, where);
               if (!o) fail(o.error().to_string());
             }));
    }
    // The floors: libsodium alone on the same bytes. The AEAD floor's nonce is counted up, not
    // drawn: libsodium's own WebAssembly random source calls JavaScript for every 4 bytes,
    // which would make the floor slower than a seal (savekit draws through Web Crypto).
    auto* out_bytes = reinterpret_cast<unsigned char*>(out.data());
    const auto* in_bytes = reinterpret_cast<const unsigned char*>(plain.data());
    report("seal", way::libsodium_blake2b, bench::time_per_call(min_ms, [&] {
             crypto_generichash(out_bytes, 32, in_bytes, plain.size(), raw_key, 32);
           }));
    report("seal", way::libsodium_aead, bench::time_per_call(min_ms, [&] {
             unsigned long long n = 0;
             sodium_increment(nonce, sizeof nonce);
             crypto_aead_xchacha20poly1305_ietf_encrypt(out_bytes, &n, in_bytes, plain.size(), nullptr, 0, nullptr,
                                                        nonce, raw_key);
           }));
  }
  return 0;
}
