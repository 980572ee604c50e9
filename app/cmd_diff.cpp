// `sparksave diff [--json] [--stat] [--epsilon E] [--ignore PATH]... [--order] A B`
// (sparksave-diff(1)): what changed between two saves of the same format, in node paths that paste
// into `dump --select` and `--ignore`.
#include "commands.hpp"
#include "common.hpp"
#include "records.hpp"
#include "usage.hpp"

#include "sparksave/diff.hpp"
#include "sparksave/escape.hpp"
#include "sparksave/print.hpp"
#include "sparksave/version.hpp"

#include <fmt/format.h>

namespace sparksave::app {

namespace {

struct DiffOptionsCli {
    std::string a, b;
    std::string a_name, b_name; // what messages call them (empty: the path)
    bool json = false;
    bool stat = false;
    bool order = false;
    bool derived = false;
    double epsilon = 0;
    std::vector<std::string> ignore;
};

// Renders changes as they come: each change a record (text lines, the --json array), or the
// --stat counts, one record at the end.
class Report {
  public:
    Report(Printer& p, const DiffOptionsCli& o, std::string_view items)
        : p_(p), o_(o), stat_(items) {}

    void add(const Change& c) {
        if (o_.stat)
            stat_.add(c);
        else
            change(c);
        ++count_;
    }

    void finish() {
        if (o_.stat) stat();
        p_.finish();
    }
    bool empty() const noexcept { return count_ == 0; }

  private:
    void change(const Change& c) { print(p_, ChangeRecord{c, c.path.str()}); }
    void stat() { print(p_, stat_, count_); }

    Printer& p_;
    const DiffOptionsCli& o_;
    DiffStat stat_;
    std::size_t count_ = 0;
};

// Files at least this large (together) are compared part by part when their format allows.
constexpr std::uint64_t k_stream_threshold = 2u << 20;

int run_diff(const DiffOptionsCli& o) {
    if (o.a == "-" && o.b == "-")
        usage_error("A and B cannot both be - (standard input is one stream, read once): give one "
                    "of them as a file");
    DiffOptions options;
    options.epsilon = o.epsilon;
    options.order = o.order;
    options.derived = o.derived;
    for (const auto& pattern : o.ignore) {
        auto p = NodePath::parse(pattern);
        if (!p) usage_error("--ignore: " + p.error().message);
        options.ignore.push_back(std::move(*p));
    }
    auto shown = [&](std::size_t i) -> const std::string& {
        const std::string& name = i == 0 ? o.a_name : o.b_name;
        return name.empty() ? (i == 0 ? o.a : o.b) : name;
    };
    std::vector<Input> inputs;
    for (const std::string& path : {o.a, o.b}) {
        Loaded loaded = load_input(path);
        if (!loaded.input) {
            message(show_path(shown(inputs.size())), loaded.error.message);
            return k_exit_trouble;
        }
        inputs.push_back(std::move(*loaded.input));
    }
    auto unparsable = [&](std::size_t i, const Findings& findings) {
        if (const Error* e = findings.first_error()) {
            message(show_path(shown(i)), "cannot be compared: it does not parse: " + e->describe());
            return true;
        }
        return false;
    };
    // Nothing is printed until both files are compared (an input that does not parse is
    // reported alone): the output is collected, then written.
    std::string output;
    const auto sink = [&output](std::string_view text) { output += text; };
    const auto printer = o.json ? json_printer(sink, o.stat ? Printer::JsonLayout::lines
                                                            : Printer::JsonLayout::array)
                                : text_printer(sink, color_stdout());
    const FormatInfo& format = *inputs[0].format;
    Report report(*printer, o, format.items);
    auto add = [&](const Change& c) { report.add(c); };
    const bool streamed =
        inputs[0].format == inputs[1].format && format.stream && !o.order &&
        inputs[0].source->view().size() + inputs[1].source->view().size() >= k_stream_threshold;
    bool compared = false;
    if (streamed) {
        // Large files: neither tree is built; only the items that differ are kept.
        auto r = diff_streamed(format, inputs[0].source, inputs[1].source, options, add);
        if (!r) {
            message(r.error().message);
            return k_exit_trouble;
        }
        if (unparsable(0, r->a_findings) || unparsable(1, r->b_findings)) return k_exit_trouble;
        compared = !r->declined;
    }
    if (!compared) {
        std::vector<Parsed> docs;
        for (std::size_t i = 0; i < 2; ++i) {
            Parsed parsed = inputs[i].format->read(inputs[i].source, ReadOptions{false});
            if (unparsable(i, parsed.findings)) return k_exit_trouble;
            docs.push_back(std::move(parsed));
        }
        auto r = diff(docs[0].doc, docs[1].doc, options, add);
        if (!r) {
            message(r.error().message);
            return k_exit_trouble;
        }
    }
    report.finish();
    record_status(report.empty() ? k_exit_ok : k_exit_finding); // for a closed pipe (common.hpp)
    out(output);
    out_flush();
    return report.empty() ? k_exit_ok : k_exit_finding;
}

} // namespace

int print_structural_diff(const std::string& a, const std::string& b, std::string_view a_name,
                          std::string_view b_name) {
    DiffOptionsCli o;
    o.a = a;
    o.b = b;
    o.a_name = a_name;
    o.b_name = b_name;
    return run_diff(o);
}

void setup_diff(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<DiffOptionsCli>();
    CLI::App* cmd = app.add_subcommand(
        "diff", "What changed between two saves of the same format (any versions)");
    cmd->add_option("A", o->a, "The first save (the old one); - reads standard input")->required();
    cmd->add_option("B", o->b, "The second save (the new one)")->required();
    cmd->add_flag("--json", o->json,
                  "An array of {\"op\": add|remove|change|order, \"path\", \"old\", \"new\"}");
    cmd->add_flag("--stat", o->stat, "Counts by kind and by component type instead of each change");
    finite_non_negative(cmd->add_option(
        "--epsilon", o->epsilon,
        "Numbers that differ by at most E are equal (default 0; a finite number >= 0)"));
    cmd->add_option(
        "--ignore", o->ignore,
        "Leave out changes at or under PATH; * matches one step, ** any number (repeatable)");
    cmd->add_flag("--order", o->order,
                  "Also report children whose order changed (otherwise order is not a difference)");
    cmd->add_flag("--derived", o->derived,
                  "Also report values derived from the rest (checksums, tess body size and counts, "
                  "a text archive's nbElements/nbValue): otherwise they are left out, as they "
                  "change whenever anything else does");
    cmd->footer(
        "Entities match by name (then by position among equal names), components by type, "
        "properties and\n"
        "custom state by key; text archive entries and class children by name, Vector items by "
        "position.\n"
        "Values that are both numbers compare as numbers (a text archive string compares as "
        "text).\n"
        "Exit status: 0 no difference, 1 differences, 2 bad usage or an input that cannot be read "
        "or parsed.");
    cmd->callback([o, &exit_code] { exit_code = run_diff(*o); });
}

} // namespace sparksave::app
