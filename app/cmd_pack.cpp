// `sparksave pack [-o FILE] JSON` (sparksave-pack(1)): the inverse of `dump --json`. Builds the
// file the JSON describes (format and version are in it), recomputes checksums, reads the result
// back with the format's reader and refuses to write anything that breaks a rule of its format and
// version. Writing is atomic.
#include "commands.hpp"
#include "common.hpp"
#include "usage.hpp"

#include "sparksave/escape.hpp"
#include "sparksave/file_io.hpp"
#include "sparksave/output.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <optional>
#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

namespace sparksave::app {

namespace {

struct PackOptions {
    std::string json;
    std::string output;
};

// The largest JSON pack reads: a dump of the largest save (512 MiB) with every byte escaped
// stays well under this.
constexpr std::uint64_t k_max_json = 8ull << 30;

int run_pack(const PackOptions& o) {
    const bool to_stdout =
        o.output.empty() || o.output == "-"; // sparksave-pack(1): `-o -` is stdout
#ifdef _WIN32
    const bool terminal = _isatty(1) != 0;
#else
    const bool terminal = ::isatty(STDOUT_FILENO) == 1;
#endif
    if (to_stdout && terminal)
        usage_error("refusing to write a binary save to a terminal; use -o FILE or redirect the "
                    "output");
    // A dump is a JSON object: anything else (`pack /dev/zero`) is refused on its first block,
    // before an endless stream is read. Never mapped (file_io.hpp): the JSON is walked twice.
    auto opened = read_input(
        path_from_utf8(o.json), k_detect_bytes,
        [](std::string_view head) -> Result<std::uint64_t> {
            const std::size_t first = head.find_first_not_of(" \t\r\n");
            if (first == std::string_view::npos && head.size() < k_detect_bytes) return k_max_json;
            if (first == std::string_view::npos || head[first] != '{') {
                Error e = make_error(
                    ErrorCode::bad_json,
                    "expected a JSON object (the output of `sparksave dump --json`), "
                    "found " +
                        display(head.substr(first == std::string_view::npos ? 0 : first, 16),
                                true));
                e.line = 1;
                e.column = 1;
                return e;
            }
            return k_max_json;
        },
        false);
    if (!opened) {
        const Error& e = opened.error();
        message(show_path(o.json), e.code == ErrorCode::bad_json ? e.describe() : e.message);
        return e.code == ErrorCode::too_large || e.code == ErrorCode::bad_json ? k_exit_finding
                                                                               : k_exit_trouble;
    }
    std::shared_ptr<const Source> source = std::move(opened->source);
    const std::string_view text = source->view();

    // Which format (format.hpp dump_format): a dump of a large save is validated once, by the
    // format's own reading.
    auto named = dump_format(text);
    if (!named) {
        message(show_path(o.json), named.error().describe());
        return k_exit_finding;
    }
    const FormatInfo* format = *named;
    const FormatJson& json_row = format_json(format->id);
    if (!json_row.from_json) {
        message(show_path(o.json), fmt::format("pack does not support {} files yet", format->name));
        return k_exit_trouble;
    }
    // The refusal of a result that breaks its format's rules: every error, each its own line.
    auto refusal = [&](const Summary& check) {
        std::string lines;
        for (const auto& f : check.findings.items()) {
            if (f.severity != Severity::error) continue;
            Error e = f;
            // An offset or line:column in bytes that were never written would mislead: the node
            // path says where.
            e.offset = k_no_offset;
            e.line = e.column = 0;
            lines +=
                fmt::format("sparksave: {}: refused: the JSON describes an invalid {} v{}: {}\n",
                            show_path(o.json), format->name, check.version, e.describe());
        }
        return lines;
    };
    // The write model (sparksave/output.hpp): `-o FILE` replaces a file that differs, leaves one
    // that holds these bytes alone; the result is read back and checked before it takes the name.
    OutputOptions options;
    options.destination = {Destination::Mode::replace, path_from_utf8(o.output)};
    std::string refused;
    auto report = [&](const Failure& f) {
        if (f.kind == Failure::Kind::finding && !refused.empty())
            err(refused);
        else
            message(f.error.message); // "cannot write OUT: ..."
        return f.exit_status();
    };
    // To a file, a format that can hands the bytes on as it makes them: they go straight into
    // the temporary file, which is read back and checked before it takes the name.
    if (!to_stdout && json_row.from_json_to) {
        options.check = [&](std::string_view written) -> Result<void> {
            Summary check = format->summarize(written);
            if (!check.findings.has_errors()) return {};
            refused = refusal(check);
            return make_error(ErrorCode::bad_value, "refused");
        };
        auto file = Output::open(options);
        if (!file) return report(file.failure());
        std::optional<Error> write_error;
        auto packed = json_row.from_json_to(text, [&](std::string_view b) {
            auto r = (*file)->write(b);
            if (!r && !write_error) write_error = r.error();
            return r;
        });
        // The system refused a write of OUT: trouble naming OUT, not the JSON.
        if (write_error) {
            message("cannot write " + show_path(o.output) + ": " + write_error->message);
            return k_exit_trouble;
        }
        if (!packed) {
            message(show_path(o.json), packed.error().describe());
            return k_exit_finding;
        }
        for (const auto& note : packed->notes) message(show_path(o.json), "note: " + note);
        source.reset(); // let the JSON go before the result is mapped to be checked
        auto committed = (*file)->commit();
        if (!committed) return report(committed.failure());
        return k_exit_ok;
    }
    auto packed = json_row.from_json(text);
    if (!packed) {
        message(show_path(o.json), packed.error().describe());
        return k_exit_finding;
    }
    for (const auto& note : packed->notes) message(show_path(o.json), "note: " + note);

    // Never write an invalid save: the reader applies every rule of the format and version.
    Summary check = format->summarize(packed->bytes);
    if (check.findings.has_errors()) {
        err(refusal(check));
        return k_exit_finding;
    }
    if (to_stdout) {
        out(packed->bytes);
        out_flush();
        return k_exit_ok;
    }
    auto written = Output::write(options, packed->bytes);
    if (!written) return report(written.failure());
    return k_exit_ok;
}

} // namespace

void setup_pack(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<PackOptions>();
    CLI::App* cmd = app.add_subcommand(
        "pack", "Build a save from the JSON of `dump --json` (the inverse of dump --json)");
    cmd->add_option("JSON", o->json, "The JSON file; - reads standard input")->required();
    cmd->add_option(
           "-o,--output", o->output,
           "Write the save to FILE atomically; - or no -o: standard output, unless it is a "
           "terminal (a FIFO or device FILE is refused)")
        ->type_name("FILE");
    cmd->footer(
        "An unedited dump packs back to the identical file. An edited one that breaks a rule of "
        "its\n"
        "format and version is refused with the node path; checksums are recomputed.\n"
        "Exit status: 0 written, 1 the JSON is not a valid dump or describes an invalid save,\n"
        "2 bad usage or a file that cannot be read or written.");
    cmd->callback([o, &exit_code] { exit_code = run_pack(*o); });
}

} // namespace sparksave::app
