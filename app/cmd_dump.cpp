// `sparksave dump [--json] [--offsets] [--select PATH] FILE` (sparksave-dump(1)): everything in a
// file, as a text tree for people or as lossless JSON that keeps every byte of the file; with
// `--hex [--range START..END]`, the file's bytes and the field each belongs to
// (sparksave/regions.hpp).
#include "commands.hpp"
#include "common.hpp"
#include "records.hpp"
#include "usage.hpp"

#include "sparksave/column.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/print.hpp"
#include "sparksave/regions.hpp"
#include "sparksave/version.hpp"

#include <charconv>
#include <memory>

#include <fmt/format.h>

namespace sparksave::app {

namespace {

struct DumpOptions {
    std::string file;
    bool json = false;
    bool offsets = false;
    std::string select;
    bool hex = false;
    std::string range;
};

// Reports the file's errors after what could be dumped; true when there were any.
bool report_errors(const std::string& path, const Findings& findings) {
    for (const auto& f : findings.items())
        if (f.severity == Severity::error)
            message(show_path(path), describe_finding(f, color_stderr()));
    if (findings.dropped())
        message(show_path(path), fmt::format("... and {} more findings", findings.dropped()));
    return findings.has_errors();
}

// One element of a column (a tess tile, column.hpp), as diff names it: the column's path plus
// `[index]`, `chunks[name=5].fields[0][17]`. Not a node of its own, so resolve() does not find
// it; printed, true, when `path` is such a place; false when not (`problem` says why when it
// names a column).
bool print_column_element(Printer& p, const Document& doc, const NodePath& path,
                          std::string& problem) {
    if (path.steps.empty() || path.steps.back().kind != PathStep::Kind::index) return false;
    NodePath column_path = path;
    column_path.steps.pop_back();
    auto column = resolve(doc, column_path);
    if (!column || doc.node(*column).kind != NodeKind::column) return false;
    const ColumnType type = column_type(doc, *column);
    const std::string_view bytes = doc.value(*column);
    const std::uint64_t index = path.steps.back().index;
    if (!type.valid()) return false;
    if (index >= bytes.size() / type.width) {
        problem = fmt::format("no element {} in {}: expected an index below {} (the column's "
                              "length)",
                              index, column_path.str(), bytes.size() / type.width);
        return false;
    }
    const auto at = static_cast<std::size_t>(index);
    p.value([&](std::string& json) {
        append_column_element_json(json, type, bytes, at);
        json += '\n';
    });
    p.line([&](std::string& text) {
        text += path.str() + ": ";
        append_column_element(text, type, bytes, at);
    });
    return true;
}

// A whole-file dump of a format that reads part by part: each part is printed (by the format's
// JSON parts or the text tree's) as it is read and forgotten, so memory stays bounded whatever
// the file's size.
class StreamedDump final : public Parts {
  public:
    StreamedDump(const FormatInfo& format, bool json) : format_(format) {
        if (json)
            printer_ = format_json(format.id).json_parts(buffer_);
        else
            printer_ = std::make_unique<TextParts>(PrintOptions{}, buffer_);
        json_ = json;
    }
    Result<void> head(Document& doc, std::uint64_t items) override {
        if (!json_) append_text_heading(buffer_, format_.name, doc.version());
        auto r = printer_->head(doc, items);
        drain();
        return r;
    }
    Result<void> item(Document& doc, NodeId item, std::uint64_t index) override {
        auto r = printer_->item(doc, item, index);
        if (buffer_.size() >= (1u << 20)) drain();
        return r;
    }
    Result<void> tail(Document& doc) override {
        auto r = printer_->tail(doc);
        drain();
        return r;
    }
    void stopped() override {
        printer_->stopped();
        drain();
    }

  private:
    void drain() {
        out(buffer_);
        buffer_.clear();
    }
    const FormatInfo& format_;
    std::string buffer_;
    std::unique_ptr<Parts> printer_;
    bool json_ = false;
};

// An offset of --range: decimal, or hex after 0x.
std::optional<std::uint64_t> parse_offset(std::string_view text) {
    int base = 10;
    if (text.starts_with("0x") || text.starts_with("0X")) {
        text.remove_prefix(2);
        base = 16;
    }
    std::uint64_t v = 0;
    const char* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, v, base);
    if (text.empty() || ec != std::errc() || p != end) return std::nullopt;
    return v;
}

// --range START..END (END excluded) or START+LEN, within a file of `size` bytes: [begin, end).
std::pair<std::uint64_t, std::uint64_t> parse_range(const std::string& text, std::uint64_t size) {
    const std::string expects =
        "--range expects START..END or START+LENGTH (decimal, or hex after 0x: 0x10..0x40, "
        "16+32), found '" +
        show_path(text) + "'";
    std::optional<std::uint64_t> begin, end;
    if (const std::size_t dots = text.find(".."); dots != std::string::npos) {
        begin = parse_offset(std::string_view(text).substr(0, dots));
        end = parse_offset(std::string_view(text).substr(dots + 2));
    } else if (const std::size_t plus = text.find('+'); plus != std::string::npos) {
        begin = parse_offset(std::string_view(text).substr(0, plus));
        const auto length = parse_offset(std::string_view(text).substr(plus + 1));
        if (begin && length && *length <= ~std::uint64_t{0} - *begin) end = *begin + *length;
    }
    if (!begin || !end) usage_error(expects);
    if (*end <= *begin)
        usage_error(fmt::format("--range {}: expected an end after the start ({:#x}), found {:#x}",
                                show_path(text), *begin, *end));
    if (*end > size)
        usage_error(fmt::format("--range {}: the file has {} bytes (offsets 0..{:#x}), the range "
                                "ends at {:#x}",
                                show_path(text), size, size == 0 ? 0 : size - 1, *end));
    return {*begin, *end};
}

// `dump --hex`: the rows (or the JSON regions) of [begin, end) of the file.
int run_hex(const Input& in, std::uint64_t begin, std::uint64_t end, bool json) {
    const std::string_view bytes = in.source->view();
    Findings findings;
    auto write = [](std::string_view text) { out(text); };
    if (json) {
        HexJson printer(in.format->name, bytes.size(), begin, end, k_json_schema_version, write);
        findings = file_regions(*in.format, bytes, [&](const Region& r) { printer.region(r); });
        printer.finish();
    } else {
        HexDump printer(bytes, {begin, end, color_stdout()}, write);
        findings = file_regions(*in.format, bytes, [&](const Region& r) { printer.region(r); });
        printer.finish();
    }
    out_flush();
    return report_errors(in.path, findings) ? k_exit_finding : k_exit_ok;
}

// `dump --hex --select PATH`: the rows of the node's span.
int run_hex_select(const Input& in, const NodePath& select, bool json) {
    Parsed parsed = in.format->read(in.source, ReadOptions{});
    auto found = resolve(parsed.doc, select);
    std::string problem;
    if (!found)
        problem = found.error().message;
    else if (!parsed.doc.node(*found).span.valid() || parsed.doc.node(*found).span.length == 0)
        problem = fmt::format("{} has no bytes of its own in the file (a node sparksave makes, "
                              "or an empty one): use --range",
                              select.str());
    if (!problem.empty()) {
        if (report_errors(in.path, parsed.findings)) return k_exit_finding;
        message(show_path(in.path), problem);
        return k_exit_trouble;
    }
    const Span span = parsed.doc.node(*found).span;
    return run_hex(in, span.offset, std::uint64_t{span.offset} + span.length, json);
}

int run_dump(const DumpOptions& o) {
    if (o.hex && o.offsets)
        usage_error("--offsets shows offsets in the text tree; it cannot be combined with --hex, "
                    "whose rows show every offset");
    if (!o.range.empty() && !o.hex) usage_error("--range chooses the bytes of --hex: give --hex");
    if (!o.range.empty() && !o.select.empty())
        usage_error("--select and --range both choose the bytes --hex shows: give one of them");
    if (o.json && o.offsets)
        usage_error("--offsets shows offsets in the text tree; it cannot be combined with --json");
    std::optional<NodePath> select;
    if (!o.select.empty()) {
        auto parsed = NodePath::parse(o.select);
        if (!parsed) usage_error("--select: " + parsed.error().message);
        select = std::move(*parsed);
    }
    Loaded loaded = load_input(o.file);
    if (!loaded.input) {
        message(show_path(o.file), loaded.error.message);
        return loaded.exit_code;
    }
    const Input& in = *loaded.input;
    if (o.hex) {
        if (select) return run_hex_select(in, *select, o.json);
        const std::uint64_t size = in.source->view().size();
        if (o.range.empty()) return run_hex(in, 0, size, o.json);
        const auto [begin, end] = parse_range(o.range, size);
        return run_hex(in, begin, end, o.json);
    }
    if (!select && !o.offsets && format_json(in.format->id).dump) {
        PartsRead read =
            format_json(in.format->id).dump(in.source, o.json, [](std::string_view text) {
                out(text);
            });
        out_flush();
        return report_errors(in.path, read.findings) ? k_exit_finding : k_exit_ok;
    }
    if (!select && !o.offsets && in.format->stream &&
        (!o.json || format_json(in.format->id).json_parts)) {
        StreamedDump dump(*in.format, o.json);
        PartsRead read = in.format->stream(in.source, dump); // the printers never fail
        out_flush();
        return report_errors(in.path, read.findings) ? k_exit_finding : k_exit_ok;
    }
    Parsed parsed = in.format->read(in.source, ReadOptions{});
    const Document& doc = parsed.doc;

    const auto printer = stdout_printer(o.json);
    NodeId node = doc.root();
    if (select) {
        auto found = resolve(doc, *select);
        if (!found) {
            std::string problem;
            if (print_column_element(*printer, doc, *select, problem)) {
                printer->finish();
                out_flush();
                return report_errors(in.path, parsed.findings) ? k_exit_finding : k_exit_ok;
            }
            if (!problem.empty()) {
                if (report_errors(in.path, parsed.findings)) return k_exit_finding;
                message(show_path(in.path), problem);
                return k_exit_trouble;
            }
            if (report_errors(in.path, parsed.findings)) return k_exit_finding;
            message(show_path(in.path), found.error().message);
            return k_exit_trouble;
        }
        node = *found;
    }

    // The tree, or the lossless JSON (a subtree's JSON with --select), as one document.
    printer->value([&](std::string& json) {
        if (select)
            print_json_subtree(doc, node, json);
        else
            format_json(in.format->id).to_json(doc, json);
    });
    printer->text([&](std::string& text) {
        if (!select) append_text_heading(text, in.format->name, doc.version());
        print_text(doc, node, select ? select->str() : std::string(), PrintOptions{o.offsets},
                   text);
    });
    printer->finish();
    out_flush();
    return report_errors(in.path, parsed.findings) ? k_exit_finding : k_exit_ok;
}

} // namespace

void setup_dump(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<DumpOptions>();
    CLI::App* cmd =
        app.add_subcommand("dump", "Show everything in a save: a text tree, or lossless JSON");
    cmd->add_option("FILE", o->file, "The save file; - reads standard input")->required();
    cmd->add_flag("--json", o->json,
                  "Lossless JSON that keeps every byte (schema: man sparksave-dump); `sparksave "
                  "pack` rebuilds the identical file");
    cmd->add_flag("--offsets", o->offsets,
                  "Show each node's byte offset and length (@0x1c+9) in the text tree");
    cmd->add_option(
        "--select", o->select,
        "Only the subtree at this node path, e.g. entities[0].Transform or customState[\"a.b\"]");
    cmd->add_flag("--hex", o->hex,
                  "Rows of 16 bytes (offset, hex, ASCII) with the fields that start in each: "
                  "node path, value and role; with --json, the list of regions");
    cmd->add_option("--range", o->range,
                    "With --hex, only these bytes: START..END (END excluded) or START+LENGTH, "
                    "decimal or 0x hex, e.g. 0x10..0x40 or 16+32");
    cmd->footer("A damaged file dumps what could be read, then reports the error (exit 1).\n"
                "Exit status: 0 dumped, 1 the file is invalid, 2 bad usage or unreadable file.");
    cmd->callback([o, &exit_code] { exit_code = run_dump(*o); });
}

} // namespace sparksave::app
