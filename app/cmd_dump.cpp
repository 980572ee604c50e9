// `sparksave dump [--json] [--offsets] [--select PATH] FILE` (sparksave-dump(1)): everything in a
// file, as a text tree for people or as lossless JSON that keeps every byte of the file.
#include "commands.hpp"
#include "common.hpp"
#include "usage.hpp"

#include "sparksave/column.hpp"
#include "sparksave/node_path.hpp"
#include "sparksave/print.hpp"
#include "sparksave/version.hpp"

#include <memory>

#include <fmt/format.h>

namespace sparksave::app {

namespace {

struct DumpOptions {
    std::string file;
    bool json = false;
    bool offsets = false;
    std::string select;
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
        if (!json_)
            buffer_ += fmt::format("format: {}\nversion: {}\n", format_.name, doc.version());
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

int run_dump(const DumpOptions& o) {
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
        if (!select)
            text += fmt::format("format: {}\nversion: {}\n", in.format->name, doc.version());
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
    cmd->footer("A damaged file dumps what could be read, then reports the error (exit 1).\n"
                "Exit status: 0 dumped, 1 the file is invalid, 2 bad usage or unreadable file.");
    cmd->callback([o, &exit_code] { exit_code = run_dump(*o); });
}

} // namespace sparksave::app
