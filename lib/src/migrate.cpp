// Planning and running migrations.
#include "sparksave/migrate.hpp"

#include "sparksave/format.hpp"

#include <fmt/format.h>

namespace sparksave {

Result<std::vector<const MigrationStep*>> plan_migration(FormatId format, std::uint32_t from,
                                                         std::uint32_t to) {
    if (to < from)
        return make_error(ErrorCode::bad_usage,
                          fmt::format("cannot migrate down from v{} to v{}: no downgrades", from, to));
    std::vector<const MigrationStep*> plan;
    std::uint32_t at = from;
    while (at < to) {
        const MigrationStep* next = nullptr;
        for (const auto& step : migration_steps())
            if (step.format == format && step.from == at) next = &step;
        if (!next || next->to > to)
            return make_error(ErrorCode::bad_usage,
                              fmt::format("no migration step from {} v{} toward v{}", format_name(format), at, to));
        plan.push_back(next);
        at = next->to;
    }
    return plan;
}

Result<Migrated> migrate(const Document& doc, std::uint32_t to) {
    auto plan = plan_migration(doc.format(), doc.version(), to);
    if (!plan) return plan.error();
    Migrated out;
    out.steps = std::move(*plan);
    Document copy = doc;
    for (const MigrationStep* step : out.steps) {
        if (auto r = step->apply(copy, out.notes); !r) {
            Error e = r.error();
            e.message = fmt::format("step {}: {}", step->id, e.message);
            return e;
        }
        copy.set_version(step->to);
    }
    const FormatInfo& format = format_info(doc.format());
    auto bytes = format.write(copy);
    if (!bytes) {
        Error e = bytes.error();
        e.message = fmt::format("writing v{}: {}", to, e.message);
        return e;
    }
    // The result must be a valid file of the target version: this is where the target's rules
    // (e.g. every v4 rule of FORMATS.md 1.4) are enforced, by the one reader that has them.
    Summary check = format.summarize(*bytes);
    const std::string_view last = out.steps.empty() ? std::string_view("write") : out.steps.back()->id;
    if (const Error* e = check.findings.first_error()) {
        Error failed = *e;
        failed.offset = k_no_offset; // an offset in the new file would mislead; the path names the place
        failed.message = fmt::format("the v{} rules refuse the result of step {}: {}", to, last, e->message);
        return failed;
    }
    if (!check.version_known || check.version != to)
        return make_error(ErrorCode::internal, fmt::format("step {}: the result reads as v{}, not v{}", last, check.version, to));
    out.bytes = std::move(*bytes);
    return out;
}

} // namespace sparksave
