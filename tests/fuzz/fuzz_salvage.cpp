// libFuzzer target for salvage (sparksave/salvage.hpp), over every format that salvages: any input
// gives a clean error or an output whose format's reader finds no error (and, migrated to the
// current version with --to, that the engine loads),
// regions that tile the input exactly (in order, no gap, no overlap), totals that add up to the
// input, and a second salvage of the output that keeps everything and changes nothing.
#include "sparksave/format.hpp"
#include "sparksave/salvage.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

[[noreturn]] void bug(const sparksave::FormatInfo& format, const char* what, std::string detail) {
    std::fprintf(stderr, "fuzz_salvage: %.*s: %s: %s\n", static_cast<int>(format.name.size()),
                 format.name.data(), what, detail.c_str());
    std::abort();
}

void check(const sparksave::FormatInfo& format, std::string_view bytes, bool accept, bool current) {
    using namespace sparksave;
    SalvageOptions options;
    options.accept_checksum = accept;
    if (current) options.to = format.current_version;
    auto made = salvage(format, bytes, options);
    if (!made) {
        if (made.error().code == ErrorCode::internal)
            bug(format, "internal error", made.error().describe());
        return;
    }
    const Salvaged& s = *made;
    std::uint64_t at = 0, kept = 0, lost = 0;
    for (const SalvageRegion& r : s.regions) {
        if (r.offset != at) bug(format, "regions do not tile the input", std::to_string(r.offset));
        at += r.length;
        (r.kind == SalvageRegion::Kind::lost ? lost : kept) += r.length;
    }
    if (at != bytes.size() || s.input_size != bytes.size())
        bug(format, "regions do not cover the input", std::to_string(at));
    if (kept != s.totals.bytes.kept || lost != s.totals.bytes.lost)
        bug(format, "byte totals", std::to_string(kept) + " " + std::to_string(lost));
    if (s.withheld) {
        if (!s.bytes.empty() || accept) bug(format, "withheld", "bytes or --accept-checksum");
        return;
    }
    const Summary out = format.summarize(s.bytes);
    if (const Error* e = out.findings.first_error())
        bug(format, "the output has an error", e->describe());
    // Of the file's own version an old save is one the engine needs migrated; of the current
    // version (--to) it loads it.
    if (current && !out.engine_loads)
        bug(format, "the engine does not load the output", out.engine_note);
    auto again = salvage(format, s.bytes, options);
    if (!again) bug(format, "salvage of the output failed", again.error().describe());
    if (again->lost_anything() || again->bytes != s.bytes)
        bug(format, "salvage of the output is not idempotent", "");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace sparksave;
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    for (const FormatInfo& format : format_table()) {
        if (!format.salvage) continue;
        check(format, bytes, false, false);
        check(format, bytes, true, false);
        check(format, bytes, false, true);
    }
    return 0;
}
