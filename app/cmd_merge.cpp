// `sparksave merge BASE OURS THEIRS [-o OUT]` (sparksave-merge(1)): the three-way structural merge
// of two saves of one format and version (sparksave/merge.hpp). On conflicts nothing is written
// and each is printed; a merge is written (over OURS, or to OUT) atomically, after the result read
// back as what was merged.
#include "commands.hpp"
#include "common.hpp"
#include "records.hpp"
#include "usage.hpp"

#include "sparksave/merge.hpp"
#include "sparksave/migrate.hpp"
#include "sparksave/output.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <array>
#include <optional>

namespace sparksave::app {

namespace {

struct MergeCli {
    std::string base, ours, theirs, output;
};

} // namespace

int merge_files(const std::string& base, const std::string& ours, const std::string& theirs,
                const std::string& output, std::string_view ours_name) {
    const bool in_place = output.empty();
    if (int(base == "-") + int(ours == "-") + int(theirs == "-") > 1)
        usage_error("only one of BASE, OURS and THEIRS can be - (standard input is one stream, "
                    "read once)");
    if (in_place && ours == "-")
        usage_error("OURS is replaced by the merge: it cannot be standard input (-) unless -o OUT "
                    "is given");
    if (output == "-") usage_error("-o expects a file (the merged save is binary), found -");
    const std::array<std::string, 3> paths{base, ours, theirs};
    const std::array<std::string, 3> names{base, ours_name.empty() ? ours : std::string(ours_name),
                                           theirs};
    // OURS is read under its lock when it is replaced (output.hpp open_locked), held until the
    // merge is renamed over it.
    std::array<std::optional<Input>, 3> inputs;
    FileLock lock;
    for (std::size_t i = 0; i < 3; ++i) {
        Result<Input> opened = make_error(ErrorCode::internal, "not read");
        if (i == 1 && in_place) {
            auto locked = open_locked(paths[i], forced_format(), false);
            if (locked) {
                lock = std::move(locked->lock);
                opened = std::move(locked->input);
            } else {
                opened = locked.error();
            }
        } else {
            opened = open_input(paths[i], forced_format(), false);
        }
        if (!opened) {
            message(show_path(names[i]), "cannot be merged: " + opened.error().message);
            return k_exit_trouble;
        }
        inputs[i] = std::move(*opened);
    }
    std::array<std::optional<Parsed>, 3> docs;
    for (std::size_t i = 0; i < 3; ++i) {
        docs[i] = inputs[i]->format->read(inputs[i]->source, ReadOptions{false});
        if (auto changed = changed_while_read(*inputs[i])) {
            message(show_path(names[i]), changed->message);
            return k_exit_trouble;
        }
        if (const Error* e = docs[i]->findings.first_error()) {
            message(show_path(names[i]), "cannot be merged: it does not parse: " + e->describe());
            return k_exit_trouble;
        }
    }
    auto merged = merge(docs[0]->doc, docs[1]->doc, docs[2]->doc);
    if (!merged) {
        message(show_path(names[1]), merged.error().message);
        return k_exit_trouble;
    }
    const std::string shown = show_path(names[1]);
    const std::string untouched = in_place ? "OURS is left as it was" : "nothing written";
    if (!merged->conflicts.empty()) {
        const auto printer = stdout_printer(false);
        for (const MergeConflict& c : merged->conflicts) print(*printer, ConflictRecord{c});
        printer->finish();
        record_status(k_exit_finding);
        const std::size_t n = merged->conflicts.size();
        message(shown,
                fmt::format("not merged: {} conflict{}; {}", n, n == 1 ? "" : "s", untouched));
        return k_exit_finding;
    }
    if (merged->unverified) {
        message(shown, "not merged: " + merged->unverified->message + "; " + untouched);
        return k_exit_finding;
    }
    const FormatInfo& format = *inputs[1]->format;
    const std::uint32_t version = docs[1]->doc.version();
    OutputOptions options;
    options.input = &*inputs[1];
    options.destination = in_place
                              ? Destination{Destination::Mode::in_place, path_from_utf8(ours)}
                              : Destination{Destination::Mode::replace, path_from_utf8(output)};
    options.check = [&](std::string_view written) {
        return check_result(format, written, version, "");
    };
    auto written = Output::write(options, merged->bytes);
    if (!written) {
        message(written.failure().error.message);
        return written.failure().exit_status();
    }
    const std::string target = in_place ? shown : show_path(output);
    const std::size_t n = merged->from_theirs;
    out(n == 0 ? fmt::format("merged {}: nothing to take from THEIRS\n", target)
               : fmt::format("merged {}: {} change{} of THEIRS taken\n", target, n,
                             n == 1 ? "" : "s"));
    out_flush();
    return k_exit_ok;
}

void setup_merge(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<MergeCli>();
    CLI::App* cmd = app.add_subcommand(
        "merge", "Three-way structural merge of two saves of one format and version");
    cmd->add_option("BASE", o->base, "The common ancestor")->required();
    cmd->add_option("OURS", o->ours, "Our save: replaced by the merge unless -o is given")
        ->required();
    cmd->add_option("THEIRS", o->theirs, "Their save, whose changes since BASE are taken")
        ->required();
    cmd->add_option("-o,--output", o->output,
                    "Write the merge to FILE (replaced atomically) instead of over OURS")
        ->type_name("FILE");
    cmd->footer(
        "Entities, components and properties are matched as `diff` matches them. A change on one "
        "side is\n"
        "taken, the same change on both sides once; anything else (one value changed differently, "
        "removed\n"
        "on one side and changed on the other, added twice differently, items of a list added on "
        "both sides)\n"
        "is a conflict: each is printed, and nothing is written. The merge is written atomically "
        "once it\n"
        "reads back as what was merged.\n"
        "Exit status: 0 merged, 1 conflicts (or a merge that does not verify), 2 bad usage, an "
        "input that\n"
        "cannot be read or parsed, saves of different formats or versions, or a write that "
        "failed.");
    cmd->callback(
        [o, &exit_code] { exit_code = merge_files(o->base, o->ours, o->theirs, o->output); });
}

} // namespace sparksave::app
