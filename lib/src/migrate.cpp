// Planning and running migrations.
#include "sparksave/migrate.hpp"

#include "sparksave/format.hpp"

#include <fmt/format.h>

#include <charconv>
#include <optional>

namespace sparksave {

std::string backup_name(std::string_view file, std::uint32_t old_version) {
    return fmt::format("{}.v{}.bak", file, old_version);
}

bool is_backup_name(std::string_view name) noexcept {
    if (!name.ends_with(".bak")) return false;
    name.remove_suffix(4);
    std::size_t digits = 0;
    while (digits < name.size() && name[name.size() - 1 - digits] >= '0' &&
           name[name.size() - 1 - digits] <= '9')
        ++digits;
    return digits > 0 && name.size() > digits + 2 && name[name.size() - 1 - digits] == 'v' &&
           name[name.size() - 2 - digits] == '.';
}

Result<std::vector<const MigrationStep*>> plan_migration(FormatId format, std::uint32_t from,
                                                         std::uint32_t to) {
    if (to < from)
        return make_error(
            ErrorCode::bad_usage,
            fmt::format("cannot migrate down from v{} to v{}: no downgrades", from, to));
    std::vector<const MigrationStep*> plan;
    std::uint32_t at = from;
    while (at < to) {
        const MigrationStep* next = nullptr;
        for (const auto& step : migration_steps())
            if (step.format == format && step.from == at) next = &step;
        if (!next || next->to > to)
            return make_error(ErrorCode::bad_usage,
                              fmt::format("no migration step from {} v{} toward v{}",
                                          format_name(format), at, to));
        plan.push_back(next);
        at = next->to;
    }
    return plan;
}

void merge_notes(std::vector<std::string>& notes, const std::vector<std::string>& more) {
    auto count_of = [](std::string_view note,
                       std::string_view& prefix) -> std::optional<std::uint64_t> {
        const std::size_t colon = note.rfind(": ");
        if (colon == std::string_view::npos) return std::nullopt;
        std::uint64_t n = 0;
        const char* first = note.data() + colon + 2;
        auto [p, ec] = std::from_chars(first, note.data() + note.size(), n);
        if (ec != std::errc() || p != note.data() + note.size() || p == first) return std::nullopt;
        prefix = note.substr(0, colon);
        return n;
    };
    for (const auto& note : more) {
        std::string_view prefix;
        auto n = count_of(note, prefix);
        bool merged = false;
        for (auto& existing : notes) {
            std::string_view existing_prefix;
            if (n) {
                auto m = count_of(existing, existing_prefix);
                if (m && existing_prefix == prefix) {
                    existing = fmt::format("{}: {}", prefix, *m + *n);
                    merged = true;
                    break;
                }
            } else if (existing == note) {
                merged = true;
                break;
            }
        }
        if (!merged) notes.push_back(note);
    }
}

namespace {

// Runs the steps over each part and hands it to the part writer (migrate_parts).
class PartMigrator final : public PartConsumer {
  public:
    PartMigrator(const FormatInfo& format, std::uint32_t to, PartWriter& writer)
        : format_(format), to_(to), writer_(writer) {}

    void head(Document& doc, std::uint64_t items) override {
        result_.from = doc.version();
        auto plan = plan_migration(format_.id, doc.version(), to_);
        if (!plan) {
            failure_ = plan.error();
            return;
        }
        result_.steps = std::move(*plan);
        if (step(doc)) keep(writer_.head(doc, items));
    }
    void item(Document& doc, NodeId item, std::uint64_t) override {
        if (step(doc)) keep(writer_.item(doc, item));
    }
    void tail(Document& doc) override {
        if (step(doc)) keep(writer_.tail(doc));
        tail_seen_ = true;
    }

    Result<MigratedParts> result(const Findings& findings) && {
        if (const Error* e = findings.first_error()) {
            Error failed = *e;
            failed.message = "does not parse: " + e->message;
            return failed;
        }
        if (failure_) return *failure_;
        if (!tail_seen_) return make_error(ErrorCode::internal, "the read ended before the tail");
        return std::move(result_);
    }

  private:
    // Applies every step to this part; false once anything failed.
    bool step(Document& doc) {
        if (failure_) return false;
        for (const MigrationStep* s : result_.steps) {
            notes_.clear();
            if (auto r = s->apply(doc, notes_); !r) {
                Error e = r.error();
                e.message = fmt::format("step {}: {}", s->id, e.message);
                failure_ = std::move(e);
                return false;
            }
            merge_notes(result_.notes, notes_);
            doc.set_version(s->to);
        }
        return true;
    }
    void keep(const Result<void>& r) {
        if (!r && !failure_) failure_ = r.error();
    }

    const FormatInfo& format_;
    std::uint32_t to_;
    PartWriter& writer_;
    MigratedParts result_;
    std::vector<std::string> notes_;
    std::optional<Error> failure_;
    bool tail_seen_ = false;
};

} // namespace

Result<MigratedParts> migrate_parts(const FormatInfo& format, std::shared_ptr<const Source> source,
                                    std::uint32_t to,
                                    const std::function<Result<void>(std::string_view)>& out) {
    if (!format.stream || !format.part_writer)
        return make_error(ErrorCode::internal,
                          fmt::format("{} cannot be migrated part by part", format.name));
    std::unique_ptr<PartWriter> writer = format.part_writer(out);
    PartMigrator migrator(format, to, *writer);
    Findings findings = format.stream(std::move(source), migrator);
    return std::move(migrator).result(findings);
}

Result<Migrated> migrate(const Document& doc, std::uint32_t to) {
    auto plan = plan_migration(doc.format(), doc.version(), to);
    if (!plan) return plan.error();
    Migrated out;
    out.steps = std::move(*plan);
    Document copy = doc;
    std::vector<std::string> notes;
    for (const MigrationStep* step : out.steps) {
        notes.clear();
        if (auto r = step->apply(copy, notes); !r) {
            Error e = r.error();
            e.message = fmt::format("step {}: {}", step->id, e.message);
            return e;
        }
        merge_notes(out.notes, notes);
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
    const std::string_view last =
        out.steps.empty() ? std::string_view("write") : out.steps.back()->id;
    if (const Error* e = check.findings.first_error()) {
        Error failed = *e;
        failed.offset =
            k_no_offset; // an offset in the new file would mislead; the path names the place
        failed.message =
            fmt::format("the v{} rules refuse the result of step {}: {}", to, last, e->message);
        return failed;
    }
    if (!check.version_known || check.version != to)
        return make_error(
            ErrorCode::internal,
            fmt::format("step {}: the result reads as v{}, not v{}", last, check.version, to));
    out.bytes = std::move(*bytes);
    return out;
}

} // namespace sparksave
