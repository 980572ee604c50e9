// libFuzzer target for content rules (sparksave/content_rules.hpp). An input is a rule file and a
// save, split at the first NUL byte (TOML text holds none): the rule text, then the save's bytes.
//  - RuleSet::parse never fails without saying where: an error is bad_usage and its message
//    begins `rules.toml:LINE:COLUMN: ` (the place in the rule file);
//  - a set that loads, applied to the save, either refuses with an error that says what (a
//    non-empty message), or gives a save of the format's current version that verifies (the
//    format's summarize finds no error), `changed` exactly when its bytes differ from the input's;
//  - applied to its own result, the set gives that result back unchanged when every rule has a
//    module (each chain's version was stamped; a rule without a module is idempotent op by op,
//    not as a sequence: a rename then a default of the old name renames the default next time);
//  - apply(bytes) and apply(SaveView) agree on a .spark_save the view accepts.
// The [[test]]s are not run (they read files named by the input).
#include "sparksave/content_rules.hpp"
#include "sparksave/format.hpp"
#include "sparksave/save_file.hpp"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace {

using namespace sparksave;

[[noreturn]] void fail(const char* what, const std::string& detail = {}) {
    std::fprintf(stderr, "fuzz_rules: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
    std::abort();
}

constexpr std::string_view k_name = "rules.toml";

// `rules.toml:LINE:COLUMN: ` at the start of a message.
bool names_place(std::string_view m) {
    if (m.substr(0, k_name.size()) != k_name) return false;
    m.remove_prefix(k_name.size());
    for (int field = 0; field < 2; ++field) {
        if (m.empty() || m.front() != ':') return false;
        m.remove_prefix(1);
        std::size_t digits = 0;
        while (digits < m.size() && std::isdigit(static_cast<unsigned char>(m[digits]))) ++digits;
        if (digits == 0) return false;
        m.remove_prefix(digits);
    }
    return m.substr(0, 2) == ": ";
}

std::span<const std::byte> as_bytes(std::string_view s) {
    return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

void check_result(std::string_view input, const RulesApplied& r) {
    const FormatInfo* format = detect_format(std::string_view(r.bytes).substr(0, k_detect_bytes));
    if (!format) fail("the result is of no known format");
    const Summary s = format->summarize(r.bytes);
    if (const Error* e = s.findings.first_error())
        fail("the result does not verify", e->describe());
    if (s.version != format->current_version)
        fail("the result is not of the current version", std::to_string(s.version));
    if (r.changed != (r.bytes != input)) fail("`changed` does not say whether the bytes differ");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view all(reinterpret_cast<const char*>(data), size);
    const std::size_t nul = all.find('\0');
    const std::string_view text = all.substr(0, nul);
    const std::string_view save =
        nul == std::string_view::npos ? std::string_view{} : all.substr(nul + 1);
    const RuleText files[] = {{std::string(k_name), std::string(text), {}}};
    auto set = RuleSet::parse(files);
    if (!set) {
        const Error& e = set.error();
        if (e.code != ErrorCode::bad_usage)
            fail("a rule-file error is not bad_usage", e.describe());
        if (!names_place(e.message)) fail("a rule-file error does not name its place", e.message);
        return 0;
    }
    if (save.empty()) return 0;
    auto applied = set->apply(as_bytes(save));
    if (!applied) {
        if (applied.error().message.empty()) fail("an apply error says nothing");
        return 0;
    }
    check_result(save, *applied);

    bool all_modules = true;
    for (const RuleInfo& rule : set->rules()) all_modules = all_modules && rule.module.has_value();
    if (all_modules) {
        auto again = set->apply(as_bytes(applied->bytes));
        if (!again) fail("the set refuses its own result", again.error().describe());
        if (again->changed || again->bytes != applied->bytes)
            fail("the set changes its own result again");
    }

    auto view = spark_save::SaveView::parse(spark_save::as_save_bytes(save));
    if (view) {
        auto through_view = set->apply(*view);
        if (!through_view)
            fail("apply(SaveView) refuses what apply(bytes) took", through_view.error().describe());
        if (through_view->bytes != applied->bytes)
            fail("apply(SaveView) and apply(bytes) make other bytes");
    }
    return 0;
}
