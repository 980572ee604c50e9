// Planning and running migrations.
#include "sparksave/migrate.hpp"

#include "sparksave/format.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

SPARKSAVE_BEGIN_NAMESPACE

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

namespace {

// plan_migration, the format's name given (for its error).
Result<std::vector<const MigrationStep*>> plan_steps(FormatId format, std::string_view name,
                                                     std::uint32_t from, std::uint32_t to) {
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
            return make_error(
                ErrorCode::bad_usage,
                fmt::format("no migration step from {} v{} toward v{}", name, at, to));
        plan.push_back(next);
        at = next->to;
    }
    return plan;
}

} // namespace

Result<std::vector<const MigrationStep*>> plan_migration(FormatId format, std::uint32_t from,
                                                         std::uint32_t to) {
    return plan_steps(format, format_name(format), from, to);
}

std::optional<Error> unrepaired_error(const Findings& findings, FormatId format, std::uint32_t from,
                                      std::uint32_t to) {
    std::vector<const MigrationStep*> plan;
    if (from < to)
        if (auto p = plan_migration(format, from, to)) plan = std::move(*p);
    std::size_t kept = 0;
    for (const Error& e : findings.items()) {
        if (e.severity != Severity::error) continue;
        ++kept;
        const bool repaired = std::any_of(plan.begin(), plan.end(), [&](const MigrationStep* s) {
            return std::find(s->repairs.begin(), s->repairs.end(), e.code) != s->repairs.end();
        });
        if (!repaired) return e;
    }
    if (kept < findings.error_count())
        return make_error(ErrorCode::limit_exceeded,
                          fmt::format("{} errors, more than the {} sparksave keeps: the migration "
                                      "cannot tell that it repairs them all",
                                      findings.error_count(), Findings::k_max_kept));
    return std::nullopt;
}

std::string MigrationNote::describe() const {
    return count ? fmt::format("{}: {}", text, *count) : text;
}

void merge_notes(Notes& notes, const Notes& more) {
    for (const auto& note : more) {
        auto same = [&](const MigrationNote& n) {
            return n.text == note.text && n.count.has_value() == note.count.has_value();
        };
        if (auto it = std::find_if(notes.begin(), notes.end(), same); it == notes.end())
            notes.push_back(note);
        else if (note.count)
            *it->count += *note.count;
    }
}

namespace {

// Puts `context` before an error's message; its rule (Error::rule) stays what it was.
void put_in_context(Error& e, std::string context) {
    const auto shift = static_cast<std::uint32_t>(context.size());
    e.rule_begin += shift;
    if (e.rule_end != Error::k_rule_to_end) e.rule_end += shift;
    e.message.insert(0, context);
}

} // namespace

Error refused_result(const Error& finding, std::uint32_t to, std::string_view step) {
    Error failed = finding;
    failed.offset = k_no_offset;
    put_in_context(failed,
                   step.empty()
                       ? fmt::format("the v{} rules refuse the result: ", to)
                       : fmt::format("the v{} rules refuse the result of step {}: ", to, step));
    return failed;
}

namespace {

// Runs a plan's steps (migrate.hpp MigrationStep) over a whole tree or over the parts of a file,
// one at a time: the same functions either way. Each step's notes are kept apart and merged in
// step order at the end, so they come out the same either way too.
class StepRunner {
  public:
    explicit StepRunner(std::vector<const MigrationStep*> steps)
        : steps_(std::move(steps)), notes_(steps_.size()) {}

    const std::vector<const MigrationStep*>& steps() const noexcept { return steps_; }

    // Every step over the whole tree: its head function, its item function on each item of the
    // list `items` in order, then its tail function (or its whole-tree function).
    Result<void> run_whole(Document& doc, std::string_view items) {
        for (std::size_t i = 0; i < steps_.size(); ++i) {
            const MigrationStep& s = *steps_[i];
            if (s.whole && !apply(s, i, s.whole, doc)) return std::move(*failure_);
            if (s.head && !apply(s, i, s.head, doc)) return std::move(*failure_);
            if (s.item) {
                const NodeId list = doc.child(doc.root(), items);
                if (list == k_no_node)
                    return fail(s, make_error(ErrorCode::bad_value,
                                              fmt::format("expected the {} list", items),
                                              k_no_offset, std::string(items)));
                std::uint64_t index = 0;
                for (NodeId item : doc.children(list))
                    if (!apply_item(s, i, doc, item, index++)) return std::move(*failure_);
            }
            if (s.tail && !apply(s, i, s.tail, doc)) return std::move(*failure_);
            doc.set_version(s.to);
        }
        return {};
    }

    // Every step over one part of a file read part by part (Document::part()). The plan must
    // hold only steps that apply by parts.
    Result<void> run_part(Document& doc, NodeId item, std::uint64_t index) {
        for (std::size_t i = 0; i < steps_.size(); ++i) {
            const MigrationStep& s = *steps_[i];
            bool ok = true;
            switch (doc.part()) {
            case Document::Part::head:
                ok = !s.head || apply(s, i, s.head, doc);
                break;
            case Document::Part::item:
                ok = !s.item || apply_item(s, i, doc, item, index);
                break;
            case Document::Part::tail:
                ok = !s.tail || apply(s, i, s.tail, doc);
                break;
            case Document::Part::whole:
                return make_error(ErrorCode::internal, "run_part on a whole tree");
            }
            if (!ok) return std::move(*failure_);
            doc.set_version(s.to);
        }
        return {};
    }

    Notes notes() const {
        Notes out;
        for (const auto& step_notes : notes_) merge_notes(out, step_notes);
        return out;
    }

  private:
    bool apply(const MigrationStep& s, std::size_t i, StepFunction f, Document& doc) {
        scratch_.clear();
        if (auto r = f(doc, scratch_); !r) {
            fail(s, r.error());
            return false;
        }
        if (!scratch_.empty()) merge_notes(notes_[i], scratch_);
        return true;
    }
    bool apply_item(const MigrationStep& s, std::size_t i, Document& doc, NodeId item,
                    std::uint64_t index) {
        scratch_.clear();
        if (auto r = s.item(doc, item, index, scratch_); !r) {
            fail(s, r.error());
            return false;
        }
        if (!scratch_.empty()) merge_notes(notes_[i], scratch_);
        return true;
    }
    Error fail(const MigrationStep& s, Error e) {
        put_in_context(e, fmt::format("step {}: ", s.id));
        failure_ = e;
        return e;
    }

    std::vector<const MigrationStep*> steps_;
    std::vector<Notes> notes_; // by step
    Notes scratch_;
    std::optional<Error> failure_;
};

// Runs the steps over each part and hands it to the part writer (migrate_parts).
class PartMigrator final : public Parts {
  public:
    PartMigrator(const FormatInfo& format, std::uint32_t to, Parts& writer, Parts* filter)
        : format_(format), to_(to), writer_(writer), filter_(filter) {}

    Result<void> head(Document& doc, std::uint64_t items) override {
        from_ = doc.version();
        // Nothing to run: the caller checks the file whole (with a filter, only a newer file).
        if (filter_ ? from_ > to_ : from_ >= to_) {
            at_target_ = true;
            return make_error(ErrorCode::internal, "at the target version");
        }
        auto plan = plan_migration(format_.id, doc.version(), to_);
        if (!plan) return plan.error();
        for (const MigrationStep* s : *plan)
            if (!s->by_parts())
                return make_error(ErrorCode::internal,
                                  fmt::format("step {} needs the whole tree: {} v{} cannot be "
                                              "migrated part by part",
                                              s->id, format_.name, from_));
        runner_.emplace(std::move(*plan));
        if (auto r = runner_->run_part(doc, k_no_node, 0); !r) return r;
        if (filter_)
            if (auto r = filter_->head(doc, items); !r) return r;
        return writer_.head(doc, items);
    }
    Result<void> item(Document& doc, NodeId item, std::uint64_t index) override {
        if (auto r = runner_->run_part(doc, item, index); !r) return r;
        if (filter_)
            if (auto r = filter_->item(doc, item, index); !r) return r;
        return writer_.item(doc, item, index);
    }
    Result<void> tail(Document& doc) override {
        if (auto r = runner_->run_part(doc, k_no_node, 0); !r) return r;
        if (filter_)
            if (auto r = filter_->tail(doc); !r) return r;
        tail_seen_ = true;
        return writer_.tail(doc);
    }

    Result<MigratedParts> result(PartsRead read) && {
        MigratedParts out;
        out.from = from_;
        if (at_target_) return out;
        out.findings = std::move(read.findings);
        if (out.findings.first_error()) return out;
        if (read.consumer_error) return std::move(*read.consumer_error);
        if (!tail_seen_ || !runner_)
            return make_error(ErrorCode::internal, "the read ended before the tail");
        out.steps = runner_->steps();
        out.notes = runner_->notes();
        return out;
    }

  private:
    const FormatInfo& format_;
    std::uint32_t to_;
    Parts& writer_;
    std::uint32_t from_ = 0;
    Parts* filter_;
    std::optional<StepRunner> runner_;
    bool tail_seen_ = false;
    bool at_target_ = false; // the head said the file is at the target version or newer
};

} // namespace

Result<MigratedParts> migrate_parts(const FormatInfo& format, std::shared_ptr<const Source> source,
                                    std::uint32_t to,
                                    const std::function<Result<void>(std::string_view)>& out,
                                    Parts* filter) {
    if (!format.stream || !format.part_writer)
        return make_error(ErrorCode::internal,
                          fmt::format("{} cannot be migrated part by part", format.name));
    std::unique_ptr<Parts> writer = format.part_writer(out);
    PartMigrator migrator(format, to, *writer, filter);
    PartsRead read = format.stream(std::move(source), migrator);
    return std::move(migrator).result(std::move(read));
}

namespace {

// The one check of a result, on its reader's findings and version (check_result).
Result<void> check_read_back(const ReadBack& check, std::uint32_t to, std::string_view last_step) {
    // The result must be a valid file of the target version: this is where the target's rules
    // (e.g. every v4 rule of formats/README.md §1.4) are enforced, by the one reader that has them.
    if (const Error* e = check.findings.first_error()) return refused_result(*e, to, last_step);
    if (!check.version_known || check.version != to)
        return make_error(
            ErrorCode::internal,
            fmt::format("{}the result reads as v{}, not v{}",
                        last_step.empty() ? std::string() : fmt::format("step {}: ", last_step),
                        check.version, to));
    return {};
}

// The read_back of a format of the table: summarize()'s findings and version.
ReadBack summary_read_back(const FormatInfo& format, std::string_view bytes) {
    Summary s = format.summarize(bytes);
    return {std::move(s.findings), s.version, s.version_known};
}

// migrate(): the plan's steps over a copy of the tree, the writer, the read-back check
// (`read_back(bytes)`: a ReadBack).
template <class ReadBackOf>
Result<Migrated>
run_migration(const Document& doc, std::uint32_t to, std::string_view name, std::string_view items,
              Result<std::string> (*write)(const Document& doc), ReadBackOf&& read_back) {
    auto plan = plan_steps(doc.format(), name, doc.version(), to);
    if (!plan) return plan.error();
    StepRunner runner(std::move(*plan));
    Document copy = doc;
    if (auto r = runner.run_whole(copy, items); !r) return r.error();
    Migrated out;
    out.steps = runner.steps();
    out.notes = runner.notes();
    auto bytes = write(copy);
    if (!bytes) {
        Error e = bytes.error();
        put_in_context(e, fmt::format("writing v{}: ", to));
        return e;
    }
    if (auto r = check_read_back(read_back(*bytes), to,
                                 out.steps.empty() ? std::string_view() : out.steps.back()->id);
        !r)
        return r.error();
    out.bytes = std::move(*bytes);
    return out;
}

} // namespace

Result<Migrated> migrate(const Document& doc, std::uint32_t to) {
    const FormatInfo& format = format_info(doc.format());
    return run_migration(doc, to, format.name, format.items, format.write,
                         [&](std::string_view bytes) { return summary_read_back(format, bytes); });
}

Result<Migrated> migrate(const Document& doc, std::uint32_t to, const MigrationTarget& target) {
    if (doc.format() != target.id) // (not format_name(): it would link the format table)
        return make_error(ErrorCode::internal,
                          fmt::format("a tree of another format migrated as {}", target.name));
    return run_migration(doc, to, target.name, target.items, target.write, target.read_back);
}

Result<void> check_result(const FormatInfo& format, std::string_view bytes, std::uint32_t to,
                          std::string_view last_step) {
    return check_read_back(summary_read_back(format, bytes), to, last_step);
}

SPARKSAVE_END_NAMESPACE
