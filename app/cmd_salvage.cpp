// `sparksave salvage DAMAGED -o OUT [--report FILE.json] [--to V] [--accept-checksum] [--force]`
// (sparksave-salvage(1)): what a damaged save still holds, written to OUT as a save the engine
// loads, with a report of every input region kept, rebuilt or lost. The library does the work
// (sparksave/salvage.hpp); this prints it and writes through the write model (output.hpp).
#include "commands.hpp"
#include "common.hpp"

#include "sparksave/file_io.hpp"
#include "sparksave/output.hpp"
#include "sparksave/salvage.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>

namespace sparksave::app {

namespace {

struct SalvageCommand {
    std::string input;
    std::string output;
    std::string report;
    std::optional<std::uint32_t> to;
    bool accept_checksum = false;
    bool force = false;
};

bool same_file(const std::string& a, const std::string& b) {
    std::error_code ec;
    return std::filesystem::equivalent(path_from_utf8(a), path_from_utf8(b), ec) && !ec;
}

int run_salvage(const SalvageCommand& o) {
    if (o.output == "-" || o.output.empty()) {
        message("salvage writes a file: -o OUT must name one (not standard output)");
        return k_exit_trouble;
    }
    if (o.input == o.output || same_file(o.input, o.output) ||
        (!o.report.empty() && (o.report == o.input || same_file(o.input, o.report)))) {
        message(show_path(o.input), "salvage never writes over its input: choose another -o OUT");
        return k_exit_trouble;
    }
    if (!o.report.empty() && (o.report == o.output || same_file(o.output, o.report))) {
        message("--report and -o name the same file");
        return k_exit_trouble;
    }
    Loaded loaded = load_input(o.input);
    if (!loaded.input) {
        std::string why = loaded.error.message;
        if (loaded.error.code == ErrorCode::unknown_format)
            why = "nothing could be recovered: " + why +
                  " (a file whose signature is damaged: name its format with --input-format)";
        message(show_path(o.input), why);
        return k_exit_trouble;
    }
    const Input& input = *loaded.input;
    const std::string_view bytes = input.source->view();
    SalvageOptions options;
    options.to = o.to;
    options.accept_checksum = o.accept_checksum;
    auto made = salvage(*input.format, bytes, options);
    if (auto changed = changed_while_read(input)) {
        message(show_path(o.input), changed->message);
        return k_exit_trouble;
    }
    if (!made) {
        message(show_path(o.input), made.error().describe());
        // Nothing recovered: no output, but the report all the same (the whole input lost).
        auto none = nothing_recovered(input.format->id, bytes, made.error());
        if (!none) return k_exit_trouble;
        made = std::move(*none);
    }
    const Salvaged& s = *made;
    const Destination::Mode mode =
        o.force ? Destination::Mode::replace : Destination::Mode::new_file;
    auto refused = [](const Failure& f) {
        message(f.error.message); // "cannot write FILE: ..."
        return k_exit_trouble;
    };
    // The report is written first and renamed into place last, so that a failure of either
    // write (a full disk) leaves both destinations as they were.
    std::unique_ptr<Output> report;
    if (!o.report.empty()) {
        OutputOptions report_options;
        report_options.destination = {mode, path_from_utf8(o.report)};
        auto opened = Output::open(report_options);
        if (!opened) return refused(opened.failure());
        report = std::move(*opened);
        const std::string json =
            salvage_report_json(s, o.input, bytes, s.has_output() ? o.output : std::string_view{});
        if (auto w = report->write(json); !w) {
            message("cannot write " + show_path(o.report) + ": " + w.error().message);
            return k_exit_trouble;
        }
    }
    if (s.has_output()) {
        OutputOptions out_options;
        out_options.destination = {mode, path_from_utf8(o.output)};
        out_options.input = &input;
        const FormatInfo& format = *input.format;
        out_options.check = [&format](std::string_view written) -> Result<void> {
            const Summary check = format.summarize(written);
            if (const Error* e = check.findings.first_error()) return *e;
            return {};
        };
        auto written = Output::write(out_options, s.bytes);
        if (!written) return refused(written.failure());
    }
    if (report) {
        auto committed = report->commit();
        if (!committed) return refused(committed.failure());
    }
    out(salvage_report_text(s, show_path(o.input)));
    return s.exit_status();
}

} // namespace

void setup_salvage(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<SalvageCommand>();
    CLI::App* cmd = app.add_subcommand(
        "salvage", "Recover what a damaged save still holds into a new save the engine loads");
    cmd->add_option("DAMAGED", o->input, "The damaged save (never changed)")->required();
    cmd->add_option("-o,--output", o->output,
                    "Write the recovered save to FILE atomically (it must not exist unless "
                    "--force; never DAMAGED itself)")
        ->type_name("FILE")
        ->required();
    cmd->add_option("--report", o->report,
                    "Also write the report as JSON to FILE (every input region kept, rebuilt or "
                    "lost, lost bytes in hex)")
        ->type_name("FILE");
    cmd->add_option("--to", o->to,
                    "Migrate the recovered save to VERSION (default: the damaged file's version)")
        ->type_name("VERSION");
    cmd->add_flag("--accept-checksum", o->accept_checksum,
                  "Write a file whose structure is intact but whose checksum fails, with a new "
                  "checksum (its content is unverified)");
    cmd->add_flag("--force", o->force, "Replace OUT (and the --report file) when they exist");
    cmd->footer(
        "The text report goes to standard output: each region rebuilt or lost, the totals.\n"
        "Running salvage on its own output finds nothing to do and writes the same bytes.\n"
        "Exit status: 0 nothing lost, 1 something lost (the report says what) or the output\n"
        "withheld (checksum fails, no --accept-checksum), 2 nothing could be recovered, bad\n"
        "usage, or OUT cannot be written.");
    cmd->callback([o, &exit_code] { exit_code = run_salvage(*o); });
}

} // namespace sparksave::app
