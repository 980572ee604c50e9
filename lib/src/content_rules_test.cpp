// RuleSet::test (sparksave/content_rules.hpp): each rule's [[test]]s, through the format's JSON
// reader (format.hpp FormatJson), in a file apart so that an engine that never calls test()
// links no JSON code.
#include "content_rules_data.hpp"

#include "sparksave/diff.hpp"
#include "sparksave/file_io.hpp"
#include "sparksave/format.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <optional>

SPARKSAVE_BEGIN_NAMESPACE

namespace {

// A dump is at most what its format's save may be, in JSON: ten times the size.
Result<std::string> packed(const FormatInfo& format, const std::filesystem::path& dump,
                           std::string_view test, std::string_view role) {
    auto in = read_input(
        dump, 0,
        [&](std::string_view) -> Result<std::uint64_t> { return format.max_file_size * 10; },
        false);
    auto fail = [&](const Error& e) {
        Error out = e;
        out.message =
            fmt::format("{}: the {} {}: {}", test, role, dump.generic_string(), e.describe());
        out.line = out.column = 0;
        out.offset = k_no_offset;
        out.path.clear();
        return out;
    };
    if (!in) return fail(in.error());
    auto p = format_json(format.id).from_json(in->source->view());
    if (!p) return fail(p.error());
    return std::move(p->bytes);
}

// The first difference of two saves, for people: the node path diff() names.
std::string first_difference(const FormatInfo& format, const std::string& a, const std::string& b) {
    Parsed da = format.read(std::make_shared<const Source>(a), {});
    Parsed db = format.read(std::make_shared<const Source>(b), {});
    std::optional<std::string> first;
    DiffOptions options;
    options.order = true;
    options.derived = true;
    (void)diff(da.doc, db.doc, options, [&](const Change& c) {
        if (!first) first = fmt::format("{} {}", op_name(c.op), c.path.str());
        if (c.path.str().empty()) *first = fmt::format("{} of the version", op_name(c.op));
    });
    return first.value_or("the same content, other bytes");
}

} // namespace

Result<RuleTestReport> RuleSet::test() const {
    RuleTestReport report;
    for (std::size_t i = 0; i < d_->rules.size(); ++i) {
        const content_rules::Rule& rule = d_->rules[i];
        const content_rules::Unit alone{{}, {i}}; // the rule alone, scope checked below
        for (std::size_t t = 0; t < rule.tests.size(); ++t) {
            const content_rules::Test& test = rule.tests[t];
            const std::string name =
                fmt::format("{}: rule {}, test {}", test.where, rule.info.id, t + 1);
            auto input = packed(*rule.format, test.input, name, "input");
            if (!input) return std::move(input).error();
            auto expected = packed(*rule.format, test.expected, name, "expected result");
            if (!expected) return std::move(expected).error();
            content_rules::Unit unit = alone;
            if (rule.info.module) unit.key = rule.info.module->key;
            auto got = content_rules::apply_units(*d_, {&unit, 1}, *input);
            if (!got) {
                Error e = got.error();
                e.message.insert(0, name + ": ");
                return e;
            }
            if (got->rules_run.empty())
                return make_error(ErrorCode::bad_usage,
                                  fmt::format("{}: the input is not in the rule's scope ({})", name,
                                              got->left_alone.empty()
                                                  ? std::string("nothing ran")
                                                  : got->left_alone.front().reason));
            if (got->bytes != *expected)
                return make_error(
                    ErrorCode::bad_value,
                    fmt::format("{}: the result differs from the expected one: {}", name,
                                first_difference(*rule.format, got->bytes, *expected)));
            ++report.run;
        }
    }
    return report;
}

SPARKSAVE_END_NAMESPACE
